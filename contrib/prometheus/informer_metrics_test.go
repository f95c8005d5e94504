package prometheus_test

import (
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

var informerNames = []string{
	prometheus.MetricQueuedItems,
	prometheus.MetricProcessingLatency,
	prometheus.MetricStoreResourceVersion,
}

func newInformerProvider(t *testing.T) (*prometheus.InformerMetrics, *prom.Registry) {
	t.Helper()
	reg := prom.NewRegistry()
	p, err := prometheus.NewInformerMetricsProvider(reg)
	if err != nil {
		t.Fatalf("NewInformerMetricsProvider: %v", err)
	}
	return p, reg
}

func reserve(t *testing.T, name string, gvr schema.GroupVersionResource) (*informer.InformerName, informer.InformerNameAndResource) {
	t.Helper()
	n, err := informer.NewInformerName(name)
	if err != nil {
		t.Fatalf("NewInformerName(%q): %v", name, err)
	}
	t.Cleanup(n.Release)
	return n, n.WithResource(gvr)
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

const podsInformerExposition = `
# HELP informer_processing_latency_seconds [ALPHA] Time taken to process events after popping from the queue.
# TYPE informer_processing_latency_seconds histogram
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="0.001"} 1
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="0.005"} 1
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="0.01"} 1
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="0.025"} 2
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="0.05"} 2
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="0.1"} 2
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="0.25"} 2
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="0.5"} 2
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="1"} 2
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="2.5"} 2
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="5"} 2
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="10"} 3
informer_processing_latency_seconds_bucket{group="",name="test-pods",resource="pods",version="v1",le="+Inf"} 3
informer_processing_latency_seconds_sum{group="",name="test-pods",resource="pods",version="v1"} 7.0205
informer_processing_latency_seconds_count{group="",name="test-pods",resource="pods",version="v1"} 3
# HELP informer_queued_items [ALPHA] Number of items currently queued in the FIFO.
# TYPE informer_queued_items gauge
informer_queued_items{group="",name="test-pods",resource="pods",version="v1"} 2
# HELP informer_store_resource_version [ALPHA] The 15 least significant digits of the resource version of the store.
# TYPE informer_store_resource_version gauge
informer_store_resource_version{group="",name="test-pods",resource="pods",version="v1"} 12345
`

func TestInformerMetricsScrapeAfterKnownSequence(t *testing.T) {
	p, reg := newInformerProvider(t)
	_, id := reserve(t, "test-pods", podsGVR)
	queued := p.NewQueuedItemMetric(id)
	latency := p.NewProcessingLatencyMetric(id)
	rv := p.NewStoreResourceVersionMetric(id)
	for _, n := range []float64{1, 2, 3, 2} {
		queued.Set(n)
	}
	latency.Observe(0.0005)
	latency.Observe(0.02)
	latency.Observe(7)
	rv.Set(100)
	rv.Set(12345)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(podsInformerExposition), informerNames...); err != nil {
		t.Fatal(err)
	}
}

func TestInformerMetricsStopAfterNameReleased(t *testing.T) {
	p, reg := newInformerProvider(t)
	n, id := reserve(t, "released", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"})
	queued := p.NewQueuedItemMetric(id)
	latency := p.NewProcessingLatencyMetric(id)
	rv := p.NewStoreResourceVersionMetric(id)
	queued.Set(4)
	rv.Set(9)
	latency.Observe(0.5)

	n.Release()
	queued.Set(40)
	rv.Set(90)
	latency.Observe(0.5)

	want := `
# HELP informer_queued_items [ALPHA] Number of items currently queued in the FIFO.
# TYPE informer_queued_items gauge
informer_queued_items{group="apps",name="released",resource="deployments",version="v1"} 4
# HELP informer_store_resource_version [ALPHA] The 15 least significant digits of the resource version of the store.
# TYPE informer_store_resource_version gauge
informer_store_resource_version{group="apps",name="released",resource="deployments",version="v1"} 9
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		prometheus.MetricQueuedItems, prometheus.MetricStoreResourceVersion); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg, prometheus.MetricProcessingLatency); err != nil || n != 1 {
		t.Fatalf("latency series = %d, err %v; want 1", n, err)
	}
}

func TestInformerMetricsUnreservedIDRecordsNothing(t *testing.T) {
	p, reg := newInformerProvider(t)
	var id informer.InformerNameAndResource // zero value: never reserved
	p.NewQueuedItemMetric(id).Set(3)
	p.NewStoreResourceVersionMetric(id).Set(3)
	p.NewProcessingLatencyMetric(id).Observe(3)
	// The series exist (created empty by WithLabelValues) but hold zero.
	want := `
# HELP informer_queued_items [ALPHA] Number of items currently queued in the FIFO.
# TYPE informer_queued_items gauge
informer_queued_items{group="",name="",resource="",version=""} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), prometheus.MetricQueuedItems); err != nil {
		t.Fatal(err)
	}
}

func TestInformerMetricsBadRegisterer(t *testing.T) {
	if _, err := prometheus.NewInformerMetricsProvider(nil); err == nil || !strings.Contains(err.Error(), "must not be nil") {
		t.Fatalf("nil registerer: err = %v", err)
	}
	reg := prom.NewRegistry()
	reg.MustRegister(prom.NewGaugeVec(prom.GaugeOpts{Name: prometheus.MetricQueuedItems, Help: "other"}, []string{"name"}))
	if _, err := prometheus.NewInformerMetricsProvider(reg); err == nil {
		t.Fatal("conflicting collector: no error")
	}
}

func TestInformerMetricsLint(t *testing.T) {
	p, reg := newInformerProvider(t)
	_, id := reserve(t, "lint", podsGVR)
	p.NewQueuedItemMetric(id).Set(1)
	p.NewProcessingLatencyMetric(id).Observe(1)
	p.NewStoreResourceVersionMetric(id).Set(1)
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range problems {
		t.Errorf("lint: %s: %s", pr.Metric, pr.Text)
	}
}
