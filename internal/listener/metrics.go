package listener

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/kfanout/fanout/internal/informermetrics"
)

// ageRefreshInterval is how often the oldest-pending-age gauge is refreshed
// while notifications wait. The gauge can only be set, not computed when it
// is scraped, and the engine's goroutine may be stuck in a stalled handler,
// so a timer (armed only while something is pending) refreshes it.
const ageRefreshInterval = time.Second

// metrics are one listener's per-handler metrics. A listener whose provider
// is nil or the no-op one has no metrics value at all, so the hot path pays
// one nil check.
type metrics struct {
	provider informermetrics.ListenerMetricsProvider
	id       informermetrics.ListenerID

	pending, highWater, oldestAge informermetrics.GaugeMetric
	delivered, coalesced, panics  informermetrics.CounterMetric
	duration                      informermetrics.HistogramMetric

	// pendingV and highV are the values behind the gauges. They are
	// written where the engine serialises its pending count (the classic
	// pump; the direct engine's lock) and published outside it by publish.
	pendingV, highV atomic.Int64

	ageArmed   atomic.Bool // an age refresh timer is set
	ageMu      sync.Mutex  // guards the fields below
	ageTimer   clock.Timer
	ageStopped bool

	releaseOnce sync.Once
}

// newMetrics creates id's metrics from p; nil (no metrics) when p is nil
// or the no-op provider.
func newMetrics(p informermetrics.ListenerMetricsProvider, id informermetrics.ListenerID) *metrics {
	switch p.(type) {
	case nil, informermetrics.NoopListenerMetricsProvider, *informermetrics.NoopListenerMetricsProvider:
		return nil
	}
	return &metrics{
		provider:  p,
		id:        id,
		pending:   p.NewPendingMetric(id),
		highWater: p.NewHighWaterMetric(id),
		oldestAge: p.NewOldestPendingAgeMetric(id),
		delivered: p.NewDeliveredMetric(id),
		coalesced: p.NewCoalescedMetric(id),
		panics:    p.NewPanicsMetric(id),
		duration:  p.NewHandlerDurationMetric(id),
	}
}

// notePending records the pending count p. The engine calls it where its
// pending count changes, serialised with every other change.
func (m *metrics) notePending(p int64) {
	m.pendingV.Store(p)
	if p > m.highV.Load() {
		m.highV.Store(p)
	}
}

// publish sets the pending and high-water gauges from the values recorded
// by notePending. It may run concurrently with other publishes: each one
// re-reads the value after setting the gauge and sets it again if it
// changed meanwhile, so once changes stop the gauges hold the last values.
func (m *metrics) publish() {
	converge(m.pending, &m.pendingV)
	converge(m.highWater, &m.highV)
}

// converge sets g to v until v no longer changes under it.
func converge(g informermetrics.GaugeMetric, v *atomic.Int64) {
	for {
		x := v.Load()
		g.Set(float64(x))
		if v.Load() == x {
			return
		}
	}
}

// armAge starts the age refresh timer of l unless one is set; called
// once something is pending.
func (m *metrics) armAge(l *Listener) {
	if m.ageArmed.Load() {
		return
	}
	after, ok := l.clock.(clock.WithDelayedExecution)
	if !ok {
		return // a clock without AfterFunc: the gauge moves on deliveries only
	}
	m.ageMu.Lock()
	defer m.ageMu.Unlock()
	if m.ageStopped || m.ageTimer != nil {
		return
	}
	m.ageArmed.Store(true)
	m.ageTimer = after.AfterFunc(ageRefreshInterval, func() { m.refreshAge(l) })
}

// refreshAge is the age timer's function: it sets the gauge and re-arms
// while something is pending.
func (m *metrics) refreshAge(l *Listener) {
	m.ageMu.Lock()
	m.ageTimer = nil
	m.ageArmed.Store(false)
	stopped := m.ageStopped
	m.ageMu.Unlock()
	if stopped {
		return
	}
	age, ok := l.engine.oldestAge()
	m.oldestAge.Set(age.Seconds())
	if ok {
		m.armAge(l)
	}
}

// release stops the age timer and tells the provider to forget the
// metrics; later updates still reach the metric values but a provider
// such as contrib/prometheus no longer exports them.
func (m *metrics) release() {
	m.releaseOnce.Do(func() {
		m.ageMu.Lock()
		m.ageStopped = true
		if m.ageTimer != nil {
			m.ageTimer.Stop()
			m.ageTimer = nil
		}
		m.ageMu.Unlock()
		m.provider.Release(m.id)
	})
}
