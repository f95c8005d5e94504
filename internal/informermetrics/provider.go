package informermetrics

import "sync"

// GaugeMetric is a metric that can be set to a value.
type GaugeMetric interface {
	Set(float64)
}

// HistogramMetric is a metric that observes samples.
type HistogramMetric interface {
	Observe(float64)
}

// InformerMetricsProvider creates client-go's informer metrics: queue depth,
// processing latency and the store's resource version.
type InformerMetricsProvider interface {
	NewQueuedItemMetric(id InformerNameAndResource) GaugeMetric
	NewProcessingLatencyMetric(id InformerNameAndResource) HistogramMetric
	NewStoreResourceVersionMetric(id InformerNameAndResource) GaugeMetric
}

var (
	globalProvider     InformerMetricsProvider = noopProvider{}
	setGlobalProvider  sync.Once
	globalProviderLock sync.RWMutex
)

// SetInformerMetricsProvider sets the process-wide provider. Only the first
// call has an effect, as in client-go.
func SetInformerMetricsProvider(p InformerMetricsProvider) {
	setGlobalProvider.Do(func() {
		globalProviderLock.Lock()
		globalProvider = p
		globalProviderLock.Unlock()
	})
}

// Provider returns p, or the global provider when p is nil.
func Provider(p InformerMetricsProvider) InformerMetricsProvider {
	if p != nil {
		return p
	}
	globalProviderLock.RLock()
	defer globalProviderLock.RUnlock()
	return globalProvider
}

// FIFOMetrics are the metrics a queue reports.
type FIFOMetrics struct {
	QueuedItems       GaugeMetric
	ProcessingLatency HistogramMetric
}

// NewFIFOMetrics returns the queue metrics for id, no-ops unless id is
// reserved. A nil provider means the global one.
func NewFIFOMetrics(id InformerNameAndResource, p InformerMetricsProvider) FIFOMetrics {
	if !id.Reserved() {
		return FIFOMetrics{QueuedItems: Noop{}, ProcessingLatency: Noop{}}
	}
	p = Provider(p)
	return FIFOMetrics{QueuedItems: p.NewQueuedItemMetric(id), ProcessingLatency: p.NewProcessingLatencyMetric(id)}
}

// NewStoreResourceVersionMetric returns the store metric for id, a no-op
// unless id is reserved. A nil provider means the global one.
func NewStoreResourceVersionMetric(id InformerNameAndResource, p InformerMetricsProvider) GaugeMetric {
	if !id.Reserved() {
		return Noop{}
	}
	return Provider(p).NewStoreResourceVersionMetric(id)
}

// Noop is a metric that records nothing.
type Noop struct{}

// Set does nothing.
func (Noop) Set(float64) {}

// Observe does nothing.
func (Noop) Observe(float64) {}

type noopProvider struct{}

func (noopProvider) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric { return Noop{} }
func (noopProvider) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return Noop{}
}
func (noopProvider) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return Noop{}
}

// InformerMetricsReleaser is implemented by an InformerMetricsProvider
// that can delete the series of one informer. A shared informer calls it
// when Shutdown stops it, for an identity that is reserved.
type InformerMetricsReleaser interface {
	// ReleaseInformer deletes the series of id; metrics handed out for id
	// before may keep accepting updates but are no longer exported.
	ReleaseInformer(id InformerNameAndResource)
}

// ReleaseInformer deletes, at the providers that can, an informer's own
// series (only for a reserved id: no others were handed out) and the
// index refusal counter of the informer named name. A shared informer
// calls it when Shutdown stops it; a sharded informer, whose ranges share
// one reserved id, once its last range has stopped.
func ReleaseInformer(p InformerMetricsProvider, lp ListenerMetricsProvider, id InformerNameAndResource, name string) {
	if id.Reserved() {
		if r, ok := Provider(p).(InformerMetricsReleaser); ok {
			r.ReleaseInformer(id)
		}
	}
	if r, ok := ListenerProvider(lp).(IndexRefusalMetricsReleaser); ok {
		r.ReleaseIndexRefusals(name)
	}
}
