package informer

import "sync"

// CounterMetric is a metric that counts.
type CounterMetric interface {
	Inc()
}

// SummaryMetric is a metric that observes samples.
type SummaryMetric interface {
	Observe(float64)
}

// MetricsProvider is client-go's reflector metrics provider. client-go
// v0.37.2 accepts one but never reads it; fanout does the same, so code
// that sets one keeps compiling. Informer metrics come from
// InformerMetricsProvider, handler metrics from the listener metrics.
type MetricsProvider interface {
	NewListsMetric(name string) CounterMetric
	NewListDurationMetric(name string) SummaryMetric
	NewItemsInListMetric(name string) SummaryMetric

	NewWatchesMetric(name string) CounterMetric
	NewShortWatchesMetric(name string) CounterMetric
	NewWatchDurationMetric(name string) SummaryMetric
	NewItemsInWatchMetric(name string) SummaryMetric

	NewLastResourceVersionMetric(name string) GaugeMetric
}

var (
	reflectorMetricsOnce     sync.Once
	reflectorMetricsProvider MetricsProvider
)

// SetReflectorMetricsProvider records p; only the first call has an effect.
// Like client-go v0.37.2, the reflector publishes no metrics through it.
func SetReflectorMetricsProvider(p MetricsProvider) {
	reflectorMetricsOnce.Do(func() { reflectorMetricsProvider = p })
}
