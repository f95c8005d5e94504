package clientgo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// errNilHandler is returned for a nil client-go handler.
var errNilHandler = errors.New("event handler is nil")

// NewSharedIndexInformer returns a fanout shared informer seen through
// client-go's cache.SharedIndexInformer interface. Its signature is
// controller-runtime's cache.Options.NewInformer, so a manager can use
// fanout with
//
//	cache.Options{NewInformer: clientgo.NewSharedIndexInformer}
//
// The informer behaves as informer.NewSharedIndexInformer (client-go's
// defaults: RealFIFO queue, watch-list); use NewSharedIndexInformerFunc to
// set fanout's own options, such as informer.SeedPreset.
func NewSharedIndexInformer(lw cache.ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
	return NewSharedIndexInformerFunc(nil)(lw, exampleObject, defaultEventHandlerResyncPeriod, indexers)
}

// NewSharedIndexInformerFunc returns a constructor with
// NewSharedIndexInformer's signature whose informers are built with the
// options that configure sets. configure is called once per informer, after
// ResyncPeriod and Indexers are filled in from the constructor's arguments,
// and may change any field (InOrder, metrics provider, identifier...). A
// nil configure leaves the defaults.
func NewSharedIndexInformerFunc(configure func(*informer.SharedIndexInformerOptions)) func(cache.ListerWatcher, runtime.Object, time.Duration, cache.Indexers) cache.SharedIndexInformer {
	return func(lw cache.ListerWatcher, exampleObject runtime.Object, resync time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
		options := informer.SharedIndexInformerOptions{
			ResyncPeriod: resync,
			Indexers:     FromClientGoIndexers(indexers),
		}
		if configure != nil {
			configure(&options)
		}
		var source informer.ListerWatcher
		if lw != nil {
			source = lw
		}
		return Wrap(informer.NewSharedIndexInformerWithOptions(source, exampleObject, options))
	}
}

// Wrap returns inf seen through client-go's cache.SharedIndexInformer
// interface. It returns nil for a nil inf.
func Wrap(inf informer.SharedIndexInformer) cache.SharedIndexInformer {
	if inf == nil {
		return nil
	}
	s := &sharedIndexInformer{inner: inf, mirrors: &mirrorSet{}}
	s.checkerHost = newMirror(inf.HasSyncedChecker(), s.mirrors)
	return s
}

// FanoutInformer returns the fanout informer behind inf, with fanout's
// additions to client-go's methods (SyncStatus, WaitForResourceVersion,
// ...), and false when inf was not made by this package over a fanout
// informer. It looks through client-go's typed wrapper
// (cache.NewTypedSharedIndexInformer), so the Informer() of a factory from
// contrib/clientgo/informers works too.
func FanoutInformer(inf cache.SharedIndexInformer) (informer.FanoutInformer, bool) {
	w, ok := unwrapTyped(inf).(*sharedIndexInformer)
	if !ok || w == nil {
		return nil, false
	}
	fi, ok := w.inner.(informer.FanoutInformer)
	return fi, ok
}

// sharedIndexInformer adapts a fanout informer to client-go's interface.
// Every call is forwarded; only the types that name client-go's own
// package are converted.
type sharedIndexInformer struct {
	// checkerHost mirrors inner.HasSyncedChecker() on client-go v0.36+
	// (see checker.go).
	checkerHost
	mirrors    *mirrorSet
	inner      informer.SharedIndexInformer
	reflectors reflectorViews
	// defaults are the fanout options of every handler registered
	// through this adapter (see WrapWithHandlerDefaults).
	defaults informer.HandlerOptions
}

var _ cache.SharedIndexInformer = (*sharedIndexInformer)(nil)

// AddEventHandler registers handler with the default resync period.
func (s *sharedIndexInformer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, cache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod registers handler with its own period.
func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler cache.ResourceEventHandler, resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, cache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions registers h; client-go's options are passed on
// field by field, and the handler is named after h.
func (s *sharedIndexInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, options cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	if isNil(h) {
		return nil, errNilHandler
	}
	r, err := s.inner.AddEventHandlerWithOptions(handler{inner: h}, handlerOptions(h, options, s.defaults))
	return wrapRegistration(r, err, s.mirrors)
}

// RemoveEventHandler removes a registration made by this informer. Like
// client-go it fails for a handle of a foreign type and ignores a handle
// that is not (or no longer) registered.
func (s *sharedIndexInformer) RemoveEventHandler(handle cache.ResourceEventHandlerRegistration) error {
	r, ok := handle.(*registration)
	if !ok || r == nil {
		return fmt.Errorf("invalid key type %T", handle)
	}
	return s.inner.RemoveEventHandler(r.inner)
}

// GetStore returns the cache; fanout's Store already is a cache.Store.
func (s *sharedIndexInformer) GetStore() cache.Store { return s.inner.GetStore() }

// GetIndexer returns the cache as a client-go Indexer.
func (s *sharedIndexInformer) GetIndexer() cache.Indexer { return Indexer(s.inner.GetIndexer()) }

// GetController returns the informer's Controller view.
func (s *sharedIndexInformer) GetController() cache.Controller {
	return controller{inner: s.inner.GetController(), checkerHost: s.checkerHost}
}

// Run runs the informer until stopCh is closed.
func (s *sharedIndexInformer) Run(stopCh <-chan struct{}) {
	s.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext runs the informer until ctx is done.
func (s *sharedIndexInformer) RunWithContext(ctx context.Context) {
	s.mirrors.run(ctx)
	s.inner.RunWithContext(ctx)
}

// HasSynced reports whether the cache holds the initial list.
func (s *sharedIndexInformer) HasSynced() bool { return s.inner.HasSynced() }

// LastSyncResourceVersion is the resource version last seen.
func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	return s.inner.LastSyncResourceVersion()
}

// SetWatchErrorHandler sets the list and watch error handler. fanout runs
// its own reflector, not client-go's, so handler receives a client-go
// *cache.Reflector that is never started and only describes fanout's: the
// same Name() and TypeDescription(), which is what client-go's
// DefaultWatchErrorHandler reads.
func (s *sharedIndexInformer) SetWatchErrorHandler(handler cache.WatchErrorHandler) error {
	if handler == nil {
		return s.inner.SetWatchErrorHandler(nil)
	}
	return s.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) { handler(r, err) })
}

// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with a context;
// handler receives the same describing *cache.Reflector.
func (s *sharedIndexInformer) SetWatchErrorHandlerWithContext(handler cache.WatchErrorHandlerWithContext) error {
	if handler == nil {
		return s.inner.SetWatchErrorHandlerWithContext(nil)
	}
	return s.inner.SetWatchErrorHandlerWithContext(s.reflectors.watchErrorHandler(handler))
}

// SetTransform sets the transform applied before objects are cached.
func (s *sharedIndexInformer) SetTransform(handler cache.TransformFunc) error {
	if handler == nil {
		return s.inner.SetTransform(nil)
	}
	return s.inner.SetTransform(informer.TransformFunc(handler))
}

// IsStopped reports whether the informer has stopped.
func (s *sharedIndexInformer) IsStopped() bool { return s.inner.IsStopped() }

// AddIndexers adds indexers, also while running.
func (s *sharedIndexInformer) AddIndexers(indexers cache.Indexers) error {
	return s.inner.AddIndexers(FromClientGoIndexers(indexers))
}

// isNil reports a nil interface or a nil pointer, map or func inside one,
// which fanout's own nil check cannot see for client-go's handler types.
func isNil(h cache.ResourceEventHandler) bool {
	if h == nil {
		return true
	}
	switch v := reflect.ValueOf(h); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Interface:
		return v.IsNil()
	}
	return false
}
