package informer

import (
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/kfanout/fanout/internal/informermetrics"
)

// IndexRefusal describes a write to an informer's cache that an index
// function refused; only that write was dropped.
type IndexRefusal struct {
	// Key is the refused object's key.
	Key string
	// Index is the name of the index whose function refused it.
	Index string
	// Err is the index function's error.
	Err error
	// Time is when the write was refused, on the informer's clock.
	Time time.Time
}

// refusalLog counts the index refusals of one cache and remembers the
// last, for InformerStatsOf; the shared informer binds it to its clock and
// its refusal counter when it starts. Refusals are noted by the cache's
// writer (the informer's queue consumer); stats may be read concurrently.
type refusalLog struct {
	mu     sync.Mutex // guards the fields below
	count  uint64
	last   IndexRefusal
	clock  clock.PassiveClock            // nil: the real clock
	metric informermetrics.CounterMetric // nil: none
}

// bind sets the clock refusals are timed with and the counter they go to.
func (r *refusalLog) bind(clk clock.PassiveClock, metric informermetrics.CounterMetric) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock, r.metric = clk, metric
}

// note records the refusal e.
func (r *refusalLog) note(e *indexRefusal) {
	r.mu.Lock()
	now := time.Now()
	if r.clock != nil {
		now = r.clock.Now()
	}
	r.count++
	r.last = IndexRefusal{Key: e.key, Index: e.index, Err: e.err, Time: now}
	m := r.metric
	r.mu.Unlock()
	if m != nil {
		m.Inc()
	}
}

// snapshot returns the number of refusals and the last one (nil if none).
func (r *refusalLog) snapshot() (uint64, *IndexRefusal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.count == 0 {
		return 0, nil
	}
	last := r.last
	return r.count, &last
}

// bindIndexRefusals binds the cache's refusal log to the informer's clock
// and, if its listener metrics provider counts refusals, to its counter.
// The informer calls it when it starts, once the global provider, if any,
// is set.
func (s *sharedIndexInformer) bindIndexRefusals() {
	c, ok := s.indexer.(*cache)
	if !ok {
		return
	}
	var metric informermetrics.CounterMetric
	if p, ok := informermetrics.ListenerProvider(s.listenerMetrics).(IndexRefusalMetricsProvider); ok {
		metric = p.NewIndexRefusalsMetric(s.metricsName)
	}
	c.refusals.bind(s.clock, metric)
}
