package informer

import "github.com/kfanout/fanout/internal/informermetrics"

type (
	// ListenerMetricsProvider creates the per-handler metrics of fanout's
	// listeners: pending, high water, delivered, coalesced, panics,
	// handler duration and oldest pending age.
	ListenerMetricsProvider = informermetrics.ListenerMetricsProvider
	// ListenerID names one event handler registration in metrics.
	ListenerID = informermetrics.ListenerID
	// ListenerCounterMetric is a counter of the listener metrics. It is
	// not CounterMetric, which is client-go's reflector counter with Inc
	// only.
	ListenerCounterMetric = informermetrics.CounterMetric
	// IndexRefusalMetricsProvider is a ListenerMetricsProvider that also
	// counts, per informer, the writes an index function refused.
	IndexRefusalMetricsProvider = informermetrics.IndexRefusalMetricsProvider
	// IndexRefusalMetricsReleaser is an IndexRefusalMetricsProvider that
	// deletes an informer's refusal counter when Shutdown stops it.
	IndexRefusalMetricsReleaser = informermetrics.IndexRefusalMetricsReleaser
	// InformerMetricsReleaser is an InformerMetricsProvider that deletes
	// an informer's series when Shutdown stops it.
	InformerMetricsReleaser = informermetrics.InformerMetricsReleaser
)

// SetListenerMetricsProvider sets the process-wide listener metrics
// provider; only the first call has an effect.
func SetListenerMetricsProvider(p ListenerMetricsProvider) {
	informermetrics.SetListenerMetricsProvider(p)
}
