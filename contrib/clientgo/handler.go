package clientgo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/listener"
)

// handler passes a client-go handler to a fanout informer. Adds and
// updates go through unchanged; a delete whose object is fanout's
// tombstone is handed over as client-go's cache.DeletedFinalStateUnknown,
// the type client-go handlers (controller-runtime's among them) test for.
type handler struct {
	inner cache.ResourceEventHandler
}

// OnAdd passes the add on.
func (h handler) OnAdd(obj any, isInInitialList bool) { h.inner.OnAdd(obj, isInInitialList) }

// OnUpdate passes the update on.
func (h handler) OnUpdate(oldObj, newObj any) { h.inner.OnUpdate(oldObj, newObj) }

// OnDelete passes the delete on, converting a tombstone.
func (h handler) OnDelete(obj any) { h.inner.OnDelete(ToClientGoObject(obj)) }

// handlerOptions returns fanout options for a client-go handler: the
// adapter's defaults, with client-go's Logger and ResyncPeriod where set,
// named after the user's handler rather than the adapter unless the
// defaults name it.
func handlerOptions(h cache.ResourceEventHandler, options cache.HandlerOptions, defaults informer.HandlerOptions) informer.HandlerOptions {
	out := defaults
	if options.Logger != nil {
		out.Logger = options.Logger
	}
	if options.ResyncPeriod != nil {
		out.ResyncPeriod = options.ResyncPeriod
	}
	if out.Name == "" {
		out.Name = listener.NameForHandler(h)
	}
	return out
}

// ToClientGoObject returns obj with fanout's DeletedFinalStateUnknown
// replaced by client-go's; any other value is returned as it is.
func ToClientGoObject(obj any) any {
	if t, ok := obj.(informer.DeletedFinalStateUnknown); ok {
		return cache.DeletedFinalStateUnknown{Key: t.Key, Obj: t.Obj}
	}
	return obj
}
