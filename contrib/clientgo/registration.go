package clientgo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// registration adapts a fanout handler registration to client-go's
// interface. It also has ShutdownChan, so cache.ShutDownEventHandler works
// on it.
type registration struct {
	// checkerHost mirrors inner.HasSyncedChecker() on client-go v0.36+.
	checkerHost
	inner informer.ResourceEventHandlerRegistration
}

var _ cache.ResourceEventHandlerRegistration = (*registration)(nil)

// wrapRegistration wraps the result of a fanout AddEventHandler call.
// Its checker mirror follows r's while the informer runs.
func wrapRegistration(r informer.ResourceEventHandlerRegistration, err error, mirrors *mirrorSet) (cache.ResourceEventHandlerRegistration, error) {
	if err != nil {
		return nil, err
	}
	return &registration{inner: r, checkerHost: newMirror(r.HasSyncedChecker(), mirrors)}, nil
}

// HasSynced reports whether the informer has synced and the handler has
// returned from every initial-list add.
func (r *registration) HasSynced() bool { return r.inner.HasSynced() }

// ShutdownChan is closed once the handler will be called no more after
// removal. It is nil if the fanout registration has no such channel.
func (r *registration) ShutdownChan() <-chan struct{} {
	if s, ok := r.inner.(interface{ ShutdownChan() <-chan struct{} }); ok {
		return s.ShutdownChan()
	}
	return nil
}

// Unwrap returns the fanout registration.
func (r *registration) Unwrap() informer.ResourceEventHandlerRegistration { return r.inner }
