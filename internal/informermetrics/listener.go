package informermetrics

import (
	"sync"
	"time"
)

// CounterMetric is a metric that only goes up.
type CounterMetric interface {
	Inc()
	Add(float64)
}

// ListenerID names one event handler registration in metrics.
type ListenerID struct {
	// Informer is the informer's name: its Identifier's name when it has
	// one, otherwise its object description (e.g. "*v1.Pod").
	Informer string
	// Handler is HandlerOptions.Name, or the name derived from the handler.
	Handler string
}

// ListenerMetricsProvider creates the per-handler metrics of fanout's
// listeners. Each method is called once per registration; the metrics
// returned are updated from the listener's goroutines and from the
// informer's distributing goroutine, so they must be safe for concurrent
// use. Release is called when the registration is removed or the informer
// stops, so a provider can delete its series.
type ListenerMetricsProvider interface {
	// NewPendingMetric: notifications waiting for the handler.
	NewPendingMetric(id ListenerID) GaugeMetric
	// NewHighWaterMetric: the largest pending count seen.
	NewHighWaterMetric(id ListenerID) GaugeMetric
	// NewDeliveredMetric: handler calls made.
	NewDeliveredMetric(id ListenerID) CounterMetric
	// NewCoalescedMetric: notifications merged into a pending one.
	NewCoalescedMetric(id ListenerID) CounterMetric
	// NewPanicsMetric: handler calls that panicked.
	NewPanicsMetric(id ListenerID) CounterMetric
	// NewHandlerDurationMetric: seconds per handler call.
	NewHandlerDurationMetric(id ListenerID) HistogramMetric
	// NewOldestPendingAgeMetric: seconds the oldest pending notification
	// has waited.
	NewOldestPendingAgeMetric(id ListenerID) GaugeMetric
	// Release forgets the metrics of id.
	Release(id ListenerID)
}

var (
	globalListenerProviderOnce sync.Once
	globalListenerProviderMu   sync.RWMutex
	globalListenerProvider     ListenerMetricsProvider = NoopListenerMetricsProvider{}
)

// SetListenerMetricsProvider sets the process-wide listener metrics
// provider. Only the first call has an effect.
func SetListenerMetricsProvider(p ListenerMetricsProvider) {
	globalListenerProviderOnce.Do(func() {
		globalListenerProviderMu.Lock()
		globalListenerProvider = p
		globalListenerProviderMu.Unlock()
	})
}

// ListenerProvider returns p, or the global listener provider if p is nil.
func ListenerProvider(p ListenerMetricsProvider) ListenerMetricsProvider {
	if p != nil {
		return p
	}
	globalListenerProviderMu.RLock()
	defer globalListenerProviderMu.RUnlock()
	return globalListenerProvider
}

// NoopListenerMetricsProvider records nothing. It is the default.
type NoopListenerMetricsProvider struct{}

// NewPendingMetric returns a gauge that records nothing.
func (NoopListenerMetricsProvider) NewPendingMetric(ListenerID) GaugeMetric { return Noop{} }

// NewHighWaterMetric returns a gauge that records nothing.
func (NoopListenerMetricsProvider) NewHighWaterMetric(ListenerID) GaugeMetric { return Noop{} }

// NewDeliveredMetric returns a counter that records nothing.
func (NoopListenerMetricsProvider) NewDeliveredMetric(ListenerID) CounterMetric { return Noop{} }

// NewCoalescedMetric returns a counter that records nothing.
func (NoopListenerMetricsProvider) NewCoalescedMetric(ListenerID) CounterMetric { return Noop{} }

// NewPanicsMetric returns a counter that records nothing.
func (NoopListenerMetricsProvider) NewPanicsMetric(ListenerID) CounterMetric { return Noop{} }

// NewHandlerDurationMetric returns a histogram that records nothing.
func (NoopListenerMetricsProvider) NewHandlerDurationMetric(ListenerID) HistogramMetric {
	return Noop{}
}

// NewOldestPendingAgeMetric returns a gauge that records nothing.
func (NoopListenerMetricsProvider) NewOldestPendingAgeMetric(ListenerID) GaugeMetric { return Noop{} }

// Release does nothing: there is nothing to release.
func (NoopListenerMetricsProvider) Release(ListenerID) {}

// Inc does nothing.
func (Noop) Inc() {}

// Add does nothing.
func (Noop) Add(float64) {}

// Seconds converts a duration for metrics.
func Seconds(d time.Duration) float64 { return d.Seconds() }

// IndexRefusalMetricsProvider is implemented by a ListenerMetricsProvider
// that also counts, per informer, the writes an index function refused.
// The shared informer looks for it on its listener metrics provider when
// it starts; a provider without it gets no refusal counter.
type IndexRefusalMetricsProvider interface {
	// NewIndexRefusalsMetric: objects whose write to the cache an index
	// function refused, for the informer named informer (the Informer of
	// its handlers' ListenerIDs). It is incremented on the informer's
	// queue consumer, while the queue is held.
	NewIndexRefusalsMetric(informer string) CounterMetric
}

// IndexRefusalMetricsReleaser is implemented by an
// IndexRefusalMetricsProvider that can delete the refusal counter of one
// informer. A shared informer calls it when Shutdown stops it.
type IndexRefusalMetricsReleaser interface {
	// ReleaseIndexRefusals deletes the refusal counter of the informer
	// named informer.
	ReleaseIndexRefusals(informer string)
}
