package demo

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/debugpage"
	"github.com/kfanout/fanout/informer"
)

// clientGoSubject is client-go's own shared informer (the version this
// module requires), fed by the same Source as fanout's: a Source is a
// ListerWatcher of either library, as both declare the interface with the
// same methods. client-go has no overload options, so every handler gets
// its unbounded buffer.
//
// client-go does not report a handler's backlog, so the demo counts it:
// every notification reaches every handler of a shared informer, and the
// fast handler keeps up, so a handler's backlog is the number of calls the
// fast handler has had minus its own.
type clientGoSubject struct {
	inf  cache.SharedIndexInformer
	fast *callCounter // the reference: the first handler added
}

func newClientGoSubject(src Source) *clientGoSubject {
	return &clientGoSubject{inf: cache.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, cache.Indexers{})}
}

func (s *clientGoSubject) addHandler(_ string, h handlerFuncs, _ bool) (Statser, error) {
	c := &callCounter{ref: s.fast}
	if s.fast == nil {
		s.fast = c
		c.ref = c
	}
	_, err := s.inf.AddEventHandler(c.wrap(h))
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (s *clientGoSubject) run(ctx context.Context) { s.inf.RunWithContext(ctx) }

func (s *clientGoSubject) hasSynced() bool { return s.inf.HasSynced() }

// showOn does nothing: the debug page inspects fanout's informers only.
func (s *clientGoSubject) showOn(*debugpage.Page, string) (func(), error) { return func() {}, nil }

// callCounter counts the calls of one client-go handler and derives its
// backlog from the reference handler's count.
type callCounter struct {
	calls atomic.Uint64
	ref   *callCounter

	mu        sync.Mutex
	highWater int64 // the largest backlog Stats has seen
}

// wrap returns client-go callbacks that count every notification, also
// those of a kind h has no callback for, and then call h.
func (c *callCounter) wrap(h handlerFuncs) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			c.calls.Add(1)
			if h.AddFunc != nil {
				h.AddFunc(obj)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			c.calls.Add(1)
			if h.UpdateFunc != nil {
				h.UpdateFunc(oldObj, newObj)
			}
		},
		DeleteFunc: func(obj any) {
			c.calls.Add(1)
			if h.DeleteFunc != nil {
				h.DeleteFunc(obj)
			}
		},
	}
}

// Stats reports the calls as Delivered and the backlog as Pending; the
// call in progress does not count as pending, as in fanout's counters.
// HighWater is the largest backlog seen by a call of Stats (the demo reads
// it every sample interval).
func (c *callCounter) Stats() informer.ListenerStats {
	mine := c.calls.Load()
	pending := int64(c.ref.calls.Load()) - int64(mine)
	pending = max(pending, 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.highWater = max(c.highWater, pending)
	return informer.ListenerStats{Delivered: mine, Pending: pending, HighWater: c.highWater}
}

// clientGoVersion is the version of client-go built into this program,
// for the demo's column titles.
func clientGoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/client-go" {
				if d.Replace != nil && d.Replace.Version != "" {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return ""
}
