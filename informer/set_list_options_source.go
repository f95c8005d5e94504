package informer

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// scopedSource is the ListerWatcher a shared informer's reflector uses: it
// applies the informer's current ListScope to every request of the
// user's ListerWatcher, and filters by namespace what the server cannot.
type scopedSource struct {
	orig  ListerWatcher // for the optional methods the reflector looks for
	inner ListerWatcherWithContext
	sw    *listSwitch
}

var _ ListerWatcherWithContext = (*scopedSource)(nil)

// source returns lw seen through the switch.
func (sw *listSwitch) source(lw ListerWatcher) *scopedSource {
	return &scopedSource{orig: lw, inner: ToListerWatcherWithContext(lw), sw: sw}
}

// IsWatchListSemanticsUnSupported passes on the answer of the user's
// ListerWatcher (see NewReflectorWithOptions).
func (s *scopedSource) IsWatchListSemanticsUnSupported() bool {
	return watchListUnsupported(s.orig)
}

// List lists with the current scope.
//
// Deprecated: use ListWithContext.
func (s *scopedSource) List(options metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), options)
}

// Watch watches with the current scope.
//
// Deprecated: use WatchWithContext.
func (s *scopedSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), options)
}

// ListWithContext lists with the current scope.
func (s *scopedSource) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	sc := s.sw.current()
	sc.apply(&options)
	list, err := s.inner.ListWithContext(ctx, options)
	if err != nil || !sc.filtersOnClient() {
		return list, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return list, nil // the reflector reports it
	}
	kept := items[:0]
	for _, item := range items {
		if sc.selects(item) {
			kept = append(kept, item)
		}
	}
	if err := meta.SetList(list, kept); err != nil {
		return nil, err
	}
	return list, nil
}

// WatchWithContext watches with the current scope.
func (s *scopedSource) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	sc := s.sw.current()
	sc.apply(&options)
	w, err := s.inner.WatchWithContext(ctx, options)
	if err != nil || w == nil || !sc.filtersOnClient() {
		return w, err
	}
	return newNamespaceWatch(w, sc), nil
}

// namespaceWatch passes on the events of a watch whose objects are in the
// scope's namespaces, and every bookmark and error. Its goroutine ends
// when the inner watch closes or Stop is called.
type namespaceWatch struct {
	in   watch.Interface
	out  chan watch.Event
	done chan struct{}
	once sync.Once
}

func newNamespaceWatch(in watch.Interface, sc *listScope) *namespaceWatch {
	w := &namespaceWatch{in: in, out: make(chan watch.Event), done: make(chan struct{})}
	go w.run(sc)
	return w
}

func (w *namespaceWatch) run(sc *listScope) {
	defer close(w.out)
	events := w.in.ResultChan()
	for {
		var e watch.Event
		var ok bool
		select {
		case e, ok = <-events:
			if !ok {
				return
			}
		case <-w.done:
			return
		}
		switch e.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			if !sc.selects(e.Object) {
				continue
			}
		}
		select {
		case w.out <- e:
		case <-w.done:
			return
		}
	}
}

// ResultChan returns the filtered events.
func (w *namespaceWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop stops the inner watch and the filter.
func (w *namespaceWatch) Stop() {
	w.once.Do(func() { close(w.done) })
	w.in.Stop()
}
