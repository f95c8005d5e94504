package clientgo

import (
	"errors"

	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// errNotFanout is returned when fanout options are asked of an informer
// that fanout did not build.
var errNotFanout = errors.New("clientgo: the informer is not a fanout informer (made by contrib/clientgo, its cache package or its factories)")

// FromClientGoHandler returns h as a fanout handler: adds and updates pass
// through, and a delete carrying fanout's tombstone reaches h as
// client-go's cache.DeletedFinalStateUnknown. It returns nil for a nil h.
func FromClientGoHandler(h cache.ResourceEventHandler) informer.ResourceEventHandler {
	if isNil(h) {
		return nil
	}
	return handler{inner: h}
}

// WrapController returns c seen through client-go's cache.Controller
// interface. It returns nil for a nil c.
func WrapController(c informer.Controller) cache.Controller {
	if c == nil {
		return nil
	}
	return controller{inner: c}
}

// AddEventHandlerWithFanoutOptions registers a client-go handler on the
// fanout informer behind inf with fanout's handler options (overflow
// policy, keyed workers, panic recovery, name). The handler receives
// client-go's tombstone type, and the registration is client-go's type.
// The registration's fanout view, with Stats, is
// FanoutRegistration(result). An empty options.Name names the registration
// after h. It fails when inf is not a fanout informer.
func AddEventHandlerWithFanoutOptions(inf cache.SharedIndexInformer, h cache.ResourceEventHandler, options informer.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	w, ok := unwrapTyped(inf).(*sharedIndexInformer)
	if !ok || w == nil {
		return nil, errNotFanout
	}
	if isNil(h) {
		return nil, errNilHandler
	}
	r, err := w.inner.AddEventHandlerWithOptions(handler{inner: h}, handlerOptions(h, cache.HandlerOptions{}, options))
	return wrapRegistration(r, err, w.mirrors)
}

// FanoutRegistration returns the fanout registration behind r, which has
// Stats and fanout's additions (WaitForResourceVersion), and false when r
// was not made by a fanout informer.
func FanoutRegistration(r cache.ResourceEventHandlerRegistration) (informer.FanoutRegistration, bool) {
	w, ok := r.(*registration)
	if !ok || w == nil {
		return nil, false
	}
	fr, ok := w.inner.(informer.FanoutRegistration)
	return fr, ok
}
