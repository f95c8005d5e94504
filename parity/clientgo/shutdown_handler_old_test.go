//go:build clientgo035 || clientgo036

package parity

import "k8s.io/client-go/tools/cache"

// shutDownEventHandler stands in for ShutDownEventHandler, which client-go
// releases before v0.37 lack: it only removes the registration.
func shutDownEventHandler(inf cache.SharedInformer, reg cache.ResourceEventHandlerRegistration) error {
	return inf.RemoveEventHandler(reg)
}
