package e2e

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// The soak compares a fanout handler's calls with client-go's only where
// both informers watched. gapLW sits between an informer's reflector and
// its ListWatch and records the informer's relist gaps: a gap is the range
// of resource versions (from, to] in which the informer may have missed
// events, from the last resource version its watch delivered (or 0 before
// the first list) up to the resource version of the list (or, for a
// watch-list stream, of its initial-events-end bookmark) that replaced its
// store. Outside its gaps a reflector's watch delivers every event of the
// selector in resource version order, so two informers on one etcd see the
// same events outside the union of their gaps.

// rvGap is a range (from, to] of resource versions; to < 0 is unbounded.
type rvGap struct{ from, to int64 }

func (g rvGap) contains(rv int64) bool { return rv > g.from && (g.to < 0 || rv <= g.to) }

// gapLW wraps a ListerWatcher for fanout's and client-go's informers alike
// (their interfaces have the same methods).
type gapLW struct {
	list        func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error)
	watch       func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error)
	unsupported bool

	mu     sync.Mutex
	lastRV int64 // the newest resource version the informer has been handed
	gaps   []rvGap
	// forwarded counts watch events handed to the reflector.
	forwarded atomic.Int64
	lists     atomic.Int64
}

func parseRV(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

// List is the deprecated form; reflectors call ListWithContext.
func (l *gapLW) List(o metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), o)
}

// Watch is the deprecated form; reflectors call WatchWithContext.
func (l *gapLW) Watch(o metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), o)
}

// IsWatchListSemanticsUnSupported passes on the wrapped client's answer.
func (l *gapLW) IsWatchListSemanticsUnSupported() bool { return l.unsupported }

// ListWithContext lists and, on the last page, records the gap up to the
// list's resource version.
func (l *gapLW) ListWithContext(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	obj, err := l.list(ctx, o)
	if err != nil {
		return obj, err
	}
	if acc, aerr := meta.ListAccessor(obj); aerr == nil && acc.GetContinue() == "" {
		l.lists.Add(1)
		l.closeGap(parseRV(acc.GetResourceVersion()))
	}
	return obj, nil
}

// closeGap records (lastRV, to] as a gap and moves lastRV to to.
func (l *gapLW) closeGap(to int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gaps = append(l.gaps, rvGap{from: l.lastRV, to: to})
	l.lastRV = max(l.lastRV, to)
}

// WatchWithContext starts a watch whose events are counted as they reach
// the reflector. A watch-list stream (SendInitialEvents) is a relist: its
// initial events are inside the gap that its end bookmark closes. A plain
// watch from "" or "0" starts at an unknown point: an unbounded gap.
func (l *gapLW) WatchWithContext(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	w, err := l.watch(ctx, o)
	if err != nil {
		return w, err
	}
	initial := o.SendInitialEvents != nil && *o.SendInitialEvents
	if !initial && (o.ResourceVersion == "" || o.ResourceVersion == "0") {
		l.mu.Lock()
		l.gaps = append(l.gaps, rvGap{from: l.lastRV, to: -1})
		l.mu.Unlock()
	}
	gw := &gapWatch{inner: w, out: make(chan watch.Event), stop: make(chan struct{}), lw: l, initial: initial}
	go gw.run()
	return gw, nil
}

// gapSnapshot returns a copy of the gaps.
func (l *gapLW) gapSnapshot() []rvGap {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]rvGap(nil), l.gaps...)
}

// gapWatch forwards a watch's events and notes each resource version the
// reflector has taken. Its goroutine ends when the inner watch closes or
// Stop is called.
type gapWatch struct {
	inner   watch.Interface
	out     chan watch.Event
	stop    chan struct{}
	once    sync.Once
	lw      *gapLW
	initial bool // inside a watch-list stream's initial events
}

func (w *gapWatch) run() {
	defer close(w.out)
	in := w.inner.ResultChan()
	for {
		select {
		case ev, ok := <-in:
			if !ok {
				return
			}
			select {
			case w.out <- ev:
				w.observe(ev)
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}

func (w *gapWatch) observe(ev watch.Event) {
	if ev.Type == watch.Error {
		return
	}
	acc, err := meta.Accessor(ev.Object)
	if err != nil {
		return
	}
	rv := parseRV(acc.GetResourceVersion())
	if w.initial {
		if ev.Type == watch.Bookmark && acc.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
			w.initial = false
			w.lw.lists.Add(1)
			w.lw.closeGap(rv)
		}
		return
	}
	if ev.Type != watch.Bookmark {
		w.lw.forwarded.Add(1)
	}
	w.lw.mu.Lock()
	w.lw.lastRV = max(w.lw.lastRV, rv)
	w.lw.mu.Unlock()
}

// ResultChan returns the forwarded events.
func (w *gapWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop stops the inner watch and the forwarding goroutine.
func (w *gapWatch) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.inner.Stop()
}
