package parity

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// benchSource is the ListerWatcher of the informer benchmarks. Unlike
// fakeSource it never copies: List returns one list built up front, and
// the watch delivers events built up front, so that neither the source's
// allocations nor its CPU are counted against the informer under test.
// It opts out of watch-list, so both libraries list and then watch.
type benchSource struct {
	list *corev1.ConfigMapList

	mu      sync.Mutex
	w       *benchWatcher
	watches int
}

// newBenchSource returns a source whose list holds n ConfigMaps, named
// benchName(i), at resource version 1.
func newBenchSource(n int) *benchSource {
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	l.Items = make([]corev1.ConfigMap, n)
	for i := range l.Items {
		l.Items[i].ObjectMeta = metav1.ObjectMeta{Namespace: "bench", Name: benchName(i), ResourceVersion: "1"}
	}
	return &benchSource{list: l}
}

// benchName is the name of the i-th object of a benchSource.
func benchName(i int) string { return fmt.Sprintf("cm-%06d", i) }

// IsWatchListSemanticsUnSupported makes both reflectors list, then watch.
func (s *benchSource) IsWatchListSemanticsUnSupported() bool { return true }

// List returns the prebuilt list (not a copy: both reflectors copy the
// items out of a list with meta.ExtractListWithAlloc).
func (s *benchSource) List(metav1.ListOptions) (runtime.Object, error) { return s.list, nil }

// Watch opens a watcher that receives what send sends.
func (s *benchSource) Watch(metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches++
	s.w = &benchWatcher{ch: make(chan watch.Event, 1024), done: make(chan struct{})}
	return s.w, nil
}

// watcher waits (up to a minute) for the reflector to open its watch.
func (s *benchSource) watcher(b *testing.B) *benchWatcher {
	deadline := time.Now().Add(time.Minute)
	for {
		s.mu.Lock()
		w, n := s.w, s.watches
		s.mu.Unlock()
		if n > 1 {
			b.Fatalf("the reflector opened %d watches; events sent to the first were lost", n)
		}
		if w != nil {
			return w
		}
		if time.Now().After(deadline) {
			b.Fatal("no watch opened within a minute")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// benchWatcher is a watch.Interface fed by benchSource.
type benchWatcher struct {
	ch       chan watch.Event
	done     chan struct{}
	stopOnce sync.Once
}

// ResultChan returns the event channel; it is never closed.
func (w *benchWatcher) ResultChan() <-chan watch.Event { return w.ch }

// Stop makes a pending send return.
func (w *benchWatcher) Stop() { w.stopOnce.Do(func() { close(w.done) }) }

// send delivers events in order; before each it calls before(i) when
// before is not nil. It returns early if the watcher is stopped.
func (w *benchWatcher) send(events []watch.Event, before func(i int)) {
	for i, ev := range events {
		if before != nil {
			before(i)
		}
		select {
		case w.ch <- ev:
		case <-w.done:
			return
		}
	}
}

// benchUpdates returns n Modified events cycling over the first objects
// objects of a benchSource, each with a new resource version (from 2 up)
// and with Generation set to the event's index, so that a handler can
// tell which event it was given.
func benchUpdates(n, objects int) []watch.Event {
	cms := make([]corev1.ConfigMap, n)
	names := make([]string, objects)
	for i := range names {
		names[i] = benchName(i)
	}
	out := make([]watch.Event, n)
	for i := range out {
		cms[i].ObjectMeta = metav1.ObjectMeta{
			Namespace:       "bench",
			Name:            names[i%objects],
			ResourceVersion: strconv.Itoa(i + 2),
			Generation:      int64(i),
		}
		out[i] = watch.Event{Type: watch.Modified, Object: &cms[i]}
	}
	return out
}
