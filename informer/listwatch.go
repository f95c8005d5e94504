package informer

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Lister lists a resource. Implementations should also implement
// ListerWithContext.
type Lister interface {
	// List returns a list object. The reflector extracts its items and
	// starts watching at the list's resourceVersion.
	//
	// Deprecated: use ListerWithContext.ListWithContext instead.
	List(options metav1.ListOptions) (runtime.Object, error)
}

// ListerWithContext lists a resource under a context.
type ListerWithContext interface {
	// ListWithContext returns a list object. The reflector extracts its
	// items and starts watching at the list's resourceVersion.
	ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
}

// Watcher starts watches on a resource. Implementations should also
// implement WatcherWithContext.
type Watcher interface {
	// Watch starts a watch at options.ResourceVersion. When it returns an
	// error it has already cleaned up any watch it made.
	//
	// Deprecated: use WatcherWithContext.WatchWithContext instead.
	Watch(options metav1.ListOptions) (watch.Interface, error)
}

// WatcherWithContext starts watches on a resource under a context.
type WatcherWithContext interface {
	// WatchWithContext starts a watch at options.ResourceVersion. When it
	// returns an error it has already cleaned up any watch it made.
	WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
}

// ListerWatcher lists a resource and watches it from the listed version.
// Implementations should also implement ListerWatcherWithContext.
type ListerWatcher interface {
	Lister
	Watcher
}

// ListerWatcherWithContext is the context-aware ListerWatcher.
type ListerWatcherWithContext interface {
	ListerWithContext
	WatcherWithContext
}

// ToListerWithContext returns l itself if it already implements
// ListerWithContext, otherwise an adapter that ignores the context.
func ToListerWithContext(l Lister) ListerWithContext {
	if lc, ok := l.(ListerWithContext); ok {
		return lc
	}
	return listerAdapter{l}
}

// ToWatcherWithContext returns w itself if it already implements
// WatcherWithContext, otherwise an adapter that ignores the context.
func ToWatcherWithContext(w Watcher) WatcherWithContext {
	if wc, ok := w.(WatcherWithContext); ok {
		return wc
	}
	return watcherAdapter{w}
}

// ToListerWatcherWithContext returns lw itself if it already implements
// ListerWatcherWithContext, otherwise an adapter that ignores the context.
func ToListerWatcherWithContext(lw ListerWatcher) ListerWatcherWithContext {
	if lwc, ok := lw.(ListerWatcherWithContext); ok {
		return lwc
	}
	return listerWatcherAdapter{ToListerWithContext(lw), ToWatcherWithContext(lw)}
}

type listerAdapter struct{ l Lister }

func (a listerAdapter) ListWithContext(_ context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return a.l.List(options)
}

type watcherAdapter struct{ w Watcher }

func (a watcherAdapter) WatchWithContext(_ context.Context, options metav1.ListOptions) (watch.Interface, error) {
	return a.w.Watch(options)
}

type listerWatcherAdapter struct {
	ListerWithContext
	WatcherWithContext
}

// ListFunc lists a resource.
//
// Deprecated: use ListWithContextFunc instead.
type ListFunc func(options metav1.ListOptions) (runtime.Object, error)

// ListWithContextFunc lists a resource under a context.
type ListWithContextFunc func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)

// WatchFunc watches a resource.
//
// Deprecated: use WatchFuncWithContext instead.
type WatchFunc func(options metav1.ListOptions) (watch.Interface, error)

// WatchFuncWithContext watches a resource under a context.
type WatchFuncWithContext func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)

// ListWatch is a ListerWatcher (and ListerWatcherWithContext) made of
// functions. Set ListFunc or ListWithContextFunc, and WatchFunc or
// WatchFuncWithContext; each method prefers the function of its own
// flavour and falls back to the other one. The context-free fallback
// ignores the context; the context-aware fallback gets
// context.Background().
//
// The names of the two context-aware fields differ in word order; that is
// client-go's spelling, kept so that struct literals compile unchanged.
type ListWatch struct {
	// Deprecated: use ListWithContextFunc instead.
	ListFunc ListFunc
	// Deprecated: use WatchFuncWithContext instead.
	WatchFunc WatchFunc

	// ListWithContextFunc lists under a context.
	ListWithContextFunc ListWithContextFunc
	// WatchFuncWithContext watches under a context.
	WatchFuncWithContext WatchFuncWithContext

	// DisableChunking asks for unpaginated lists. As in client-go, nothing
	// reads it: the reflector pages lists itself.
	DisableChunking bool
}

var (
	_ ListerWatcher            = &ListWatch{}
	_ ListerWatcherWithContext = &ListWatch{}
)

// List calls ListFunc, or ListWithContextFunc with context.Background().
//
// Deprecated: use ListWithContext instead.
func (lw *ListWatch) List(options metav1.ListOptions) (runtime.Object, error) {
	if lw.ListFunc != nil {
		return lw.ListFunc(options)
	}
	return lw.ListWithContextFunc(context.Background(), options)
}

// ListWithContext calls ListWithContextFunc, or ListFunc without the
// context.
func (lw *ListWatch) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	if lw.ListWithContextFunc != nil {
		return lw.ListWithContextFunc(ctx, options)
	}
	return lw.ListFunc(options)
}

// Watch calls WatchFunc, or WatchFuncWithContext with
// context.Background().
//
// Deprecated: use WatchWithContext instead.
func (lw *ListWatch) Watch(options metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFunc != nil {
		return lw.WatchFunc(options)
	}
	return lw.WatchFuncWithContext(context.Background(), options)
}

// WatchWithContext calls WatchFuncWithContext, or WatchFunc without the
// context.
func (lw *ListWatch) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFuncWithContext != nil {
		return lw.WatchFuncWithContext(ctx, options)
	}
	return lw.WatchFunc(options)
}
