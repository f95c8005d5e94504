//go:build !clientgo035 && !clientgo036

package parity

import "k8s.io/client-go/tools/cache"

// shutDownEventHandler removes a registration and waits for its handler to
// return, with client-go's ShutDownEventHandler (v0.37 and later).
func shutDownEventHandler(inf cache.SharedInformer, reg cache.ResourceEventHandlerRegistration) error {
	return cache.ShutDownEventHandler(inf, reg)
}
