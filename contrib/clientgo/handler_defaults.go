package clientgo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// WrapWithHandlerDefaults is Wrap whose handlers, registered through
// client-go's AddEventHandler, AddEventHandlerWithResyncPeriod or
// AddEventHandlerWithOptions, get fanout's overload options from defaults
// (Overflow, MaxPending, Workers, RecoverPanics, Name). client-go's own
// HandlerOptions fields (Logger, ResyncPeriod) win where the caller sets
// them; an empty defaults.Name names each handler after itself, as Wrap
// does. It returns nil for a nil inf.
func WrapWithHandlerDefaults(inf informer.SharedIndexInformer, defaults informer.HandlerOptions) cache.SharedIndexInformer {
	if inf == nil {
		return nil
	}
	s := Wrap(inf).(*sharedIndexInformer)
	s.defaults = defaults
	return s
}
