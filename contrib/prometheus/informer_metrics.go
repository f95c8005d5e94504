package prometheus

import (
	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kfanout/fanout/informer"
)

// Names of client-go's informer metrics, as k8s.io/component-base
// registers them.
const (
	MetricQueuedItems          = "informer_queued_items"
	MetricProcessingLatency    = "informer_processing_latency_seconds"
	MetricStoreResourceVersion = "informer_store_resource_version"
)

// informerLabels are the labels of client-go's informer metrics.
var informerLabels = []string{"name", "group", "version", "resource"}

// processingLatencyBuckets are component-base's buckets for
// informer_processing_latency_seconds.
var processingLatencyBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// InformerMetrics is client-go's informer.InformerMetricsProvider on
// client_golang, with the metric names, help texts, labels and buckets of
// k8s.io/component-base. As there, a metric stops recording once its
// informer's name is released, so a stopped informer cannot overwrite a
// newer one's series. It is safe for concurrent use.
type InformerMetrics struct {
	queued  *prom.GaugeVec
	latency *prom.HistogramVec
	storeRV *prom.GaugeVec
}

var _ informer.InformerMetricsProvider = (*InformerMetrics)(nil)

// NewInformerMetricsProvider creates client-go's informer metrics and
// registers them on reg. Calling it again with the same reg returns a
// provider that writes the same series. It fails for a nil reg and when reg
// already holds a different collector under one of the names (for example
// component-base's own, registered on the same registry).
func NewInformerMetricsProvider(reg prom.Registerer) (*InformerMetrics, error) {
	if reg == nil {
		return nil, errNilRegisterer
	}
	m := &InformerMetrics{}
	var err error
	if m.queued, err = register(reg, prom.NewGaugeVec(prom.GaugeOpts{
		Name: MetricQueuedItems,
		Help: alphaHelp("Number of items currently queued in the FIFO."),
	}, informerLabels)); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, prom.NewHistogramVec(prom.HistogramOpts{
		Name:    MetricProcessingLatency,
		Help:    alphaHelp("Time taken to process events after popping from the queue."),
		Buckets: processingLatencyBuckets,
	}, informerLabels)); err != nil {
		return nil, err
	}
	if m.storeRV, err = register(reg, prom.NewGaugeVec(prom.GaugeOpts{
		Name: MetricStoreResourceVersion,
		Help: alphaHelp("The 15 least significant digits of the resource version of the store."),
	}, informerLabels)); err != nil {
		return nil, err
	}
	return m, nil
}

// labelValues returns the label values of id, in informerLabels order.
func labelValues(id informer.InformerNameAndResource) []string {
	gvr := id.GroupVersionResource()
	return []string{id.Name(), gvr.Group, gvr.Version, gvr.Resource}
}

// NewQueuedItemMetric returns the queue depth gauge of id.
func (m *InformerMetrics) NewQueuedItemMetric(id informer.InformerNameAndResource) informer.GaugeMetric {
	return reservedGauge{id: id, g: m.queued.WithLabelValues(labelValues(id)...)}
}

// NewProcessingLatencyMetric returns the processing latency histogram of id.
func (m *InformerMetrics) NewProcessingLatencyMetric(id informer.InformerNameAndResource) informer.HistogramMetric {
	return reservedHistogram{id: id, h: m.latency.WithLabelValues(labelValues(id)...)}
}

// NewStoreResourceVersionMetric returns the store resource version gauge of id.
func (m *InformerMetrics) NewStoreResourceVersionMetric(id informer.InformerNameAndResource) informer.GaugeMetric {
	return reservedGauge{id: id, g: m.storeRV.WithLabelValues(labelValues(id)...)}
}

// reservedGauge records only while its informer's name is reserved.
type reservedGauge struct {
	id informer.InformerNameAndResource
	g  prom.Gauge
}

// Set sets the gauge if the name is still reserved.
func (r reservedGauge) Set(v float64) {
	if r.id.Reserved() {
		r.g.Set(v)
	}
}

// reservedHistogram records only while its informer's name is reserved.
type reservedHistogram struct {
	id informer.InformerNameAndResource
	h  prom.Observer
}

// Observe records v if the name is still reserved.
func (r reservedHistogram) Observe(v float64) {
	if r.id.Reserved() {
		r.h.Observe(v)
	}
}

var _ informer.InformerMetricsReleaser = (*InformerMetrics)(nil)

// ReleaseInformer deletes the series of id; a shared informer calls it
// when Shutdown (or a factory's RemoveInformer) stops it.
func (m *InformerMetrics) ReleaseInformer(id informer.InformerNameAndResource) {
	lv := labelValues(id)
	m.queued.DeleteLabelValues(lv...)
	m.latency.DeleteLabelValues(lv...)
	m.storeRV.DeleteLabelValues(lv...)
}
