package prometheus_test

import (
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

var listenerNames = []string{
	prometheus.MetricHandlerPending,
	prometheus.MetricHandlerHighWater,
	prometheus.MetricHandlerDelivered,
	prometheus.MetricHandlerCoalesced,
	prometheus.MetricHandlerPanics,
	prometheus.MetricHandlerDuration,
	prometheus.MetricHandlerOldestPendingAge,
}

// listenerMetrics is one registration's metrics, as a listener holds them.
type listenerMetrics struct {
	pending, highWater, oldestAge informer.GaugeMetric
	delivered, coalesced, panics  informer.ListenerCounterMetric
	duration                      informer.HistogramMetric
}

func newListenerMetrics(p informer.ListenerMetricsProvider, id informer.ListenerID) listenerMetrics {
	return listenerMetrics{
		pending:   p.NewPendingMetric(id),
		highWater: p.NewHighWaterMetric(id),
		oldestAge: p.NewOldestPendingAgeMetric(id),
		delivered: p.NewDeliveredMetric(id),
		coalesced: p.NewCoalescedMetric(id),
		panics:    p.NewPanicsMetric(id),
		duration:  p.NewHandlerDurationMetric(id),
	}
}

func newListenerProvider(t *testing.T) (*prometheus.ListenerMetrics, *prom.Registry) {
	t.Helper()
	reg := prom.NewRegistry()
	p, err := prometheus.NewListenerMetricsProvider(reg)
	if err != nil {
		t.Fatalf("NewListenerMetricsProvider: %v", err)
	}
	return p, reg
}

// slowHandlerSequence drives the metrics as a listener would for a handler
// that stalls on its first call while five notifications arrive, two of
// which are coalesced, and whose third call panics.
func slowHandlerSequence(m listenerMetrics) {
	for pending := 1; pending <= 3; pending++ { // three adds queue up
		m.pending.Set(float64(pending))
		m.highWater.Set(float64(pending))
	}
	m.oldestAge.Set(2.5)
	m.coalesced.Inc() // two updates merge into pending ones
	m.coalesced.Add(1)
	m.duration.Observe(3)       // the stalled first call
	m.delivered.Inc()           //
	m.pending.Set(2)            //
	m.oldestAge.Set(0.5)        //
	m.duration.Observe(0.00005) // fast second call
	m.delivered.Inc()
	m.pending.Set(1)
	m.duration.Observe(0.0003) // third call panics
	m.panics.Inc()
	m.delivered.Inc()
	m.pending.Set(0)
	m.oldestAge.Set(0)
}

const slowHandlerExposition = `
# HELP informer_handler_coalesced_notifications_total [ALPHA] Total number of notifications merged into a notification already pending for an event handler.
# TYPE informer_handler_coalesced_notifications_total counter
informer_handler_coalesced_notifications_total{handler="slow",informer="pods"} 2
# HELP informer_handler_delivered_notifications_total [ALPHA] Total number of notifications delivered to an event handler.
# TYPE informer_handler_delivered_notifications_total counter
informer_handler_delivered_notifications_total{handler="slow",informer="pods"} 3
# HELP informer_handler_duration_seconds [ALPHA] Time taken by one event handler call, in seconds.
# TYPE informer_handler_duration_seconds histogram
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0001"} 1
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0002"} 1
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0004"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0008"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0016"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0032"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0064"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0128"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0256"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.0512"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.1024"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.2048"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.4096"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="0.8192"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="1.6384"} 2
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="3.2768"} 3
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="6.5536"} 3
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="13.1072"} 3
informer_handler_duration_seconds_bucket{handler="slow",informer="pods",le="+Inf"} 3
informer_handler_duration_seconds_sum{handler="slow",informer="pods"} 3.00035
informer_handler_duration_seconds_count{handler="slow",informer="pods"} 3
# HELP informer_handler_oldest_pending_notification_age_seconds [ALPHA] Time the oldest notification pending for an event handler has waited, in seconds.
# TYPE informer_handler_oldest_pending_notification_age_seconds gauge
informer_handler_oldest_pending_notification_age_seconds{handler="slow",informer="pods"} 0
# HELP informer_handler_panics_total [ALPHA] Total number of event handler calls that panicked.
# TYPE informer_handler_panics_total counter
informer_handler_panics_total{handler="slow",informer="pods"} 1
# HELP informer_handler_pending_notifications [ALPHA] Number of notifications waiting to be delivered to an event handler.
# TYPE informer_handler_pending_notifications gauge
informer_handler_pending_notifications{handler="slow",informer="pods"} 0
# HELP informer_handler_pending_notifications_high_water [ALPHA] Largest number of notifications that have waited for an event handler at once.
# TYPE informer_handler_pending_notifications_high_water gauge
informer_handler_pending_notifications_high_water{handler="slow",informer="pods"} 3
`

func TestListenerMetricsScrapeAfterKnownSequence(t *testing.T) {
	p, reg := newListenerProvider(t)
	slowHandlerSequence(newListenerMetrics(p, informer.ListenerID{Informer: "pods", Handler: "slow"}))
	if err := testutil.GatherAndCompare(reg, strings.NewReader(slowHandlerExposition), listenerNames...); err != nil {
		t.Fatal(err)
	}
}

func TestListenerMetricsFirstPendingVisible(t *testing.T) {
	p, reg := newListenerProvider(t)
	m := newListenerMetrics(p, informer.ListenerID{Informer: "pods", Handler: "h"})
	m.pending.Set(1)
	m.highWater.Set(1)
	want := `
# HELP informer_handler_pending_notifications [ALPHA] Number of notifications waiting to be delivered to an event handler.
# TYPE informer_handler_pending_notifications gauge
informer_handler_pending_notifications{handler="h",informer="pods"} 1
# HELP informer_handler_pending_notifications_high_water [ALPHA] Largest number of notifications that have waited for an event handler at once.
# TYPE informer_handler_pending_notifications_high_water gauge
informer_handler_pending_notifications_high_water{handler="h",informer="pods"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		prometheus.MetricHandlerPending, prometheus.MetricHandlerHighWater); err != nil {
		t.Fatal(err)
	}
}

func TestListenerMetricsHandlersAreSeparateSeries(t *testing.T) {
	p, reg := newListenerProvider(t)
	a := newListenerMetrics(p, informer.ListenerID{Informer: "pods", Handler: "a"})
	b := newListenerMetrics(p, informer.ListenerID{Informer: "pods", Handler: "b"})
	c := newListenerMetrics(p, informer.ListenerID{Informer: "nodes", Handler: "a"})
	a.delivered.Add(5)
	b.delivered.Inc()
	c.delivered.Add(2)
	want := `
# HELP informer_handler_delivered_notifications_total [ALPHA] Total number of notifications delivered to an event handler.
# TYPE informer_handler_delivered_notifications_total counter
informer_handler_delivered_notifications_total{handler="a",informer="nodes"} 2
informer_handler_delivered_notifications_total{handler="a",informer="pods"} 5
informer_handler_delivered_notifications_total{handler="b",informer="pods"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), prometheus.MetricHandlerDelivered); err != nil {
		t.Fatal(err)
	}
}

func TestListenerMetricsReleaseDeletesSeries(t *testing.T) {
	p, reg := newListenerProvider(t)
	gone := informer.ListenerID{Informer: "pods", Handler: "gone"}
	kept := informer.ListenerID{Informer: "pods", Handler: "kept"}
	g := newListenerMetrics(p, gone)
	slowHandlerSequence(g)
	slowHandlerSequence(newListenerMetrics(p, kept))
	if n, err := testutil.GatherAndCount(reg, listenerNames...); err != nil || n != 14 {
		t.Fatalf("before Release: %d series, err %v; want 14", n, err)
	}

	p.Release(gone)
	// A late update through a metric handed out before Release must not
	// bring the series back.
	g.pending.Set(7)
	g.delivered.Inc()
	g.duration.Observe(1)

	want := strings.ReplaceAll(slowHandlerExposition, `handler="slow"`, `handler="kept"`)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), listenerNames...); err != nil {
		t.Fatal(err)
	}

	p.Release(kept)
	p.Release(kept) // twice is harmless
	if n, err := testutil.GatherAndCount(reg, listenerNames...); err != nil || n != 0 {
		t.Fatalf("after Release: %d series, err %v; want 0", n, err)
	}

	// A new registration under a released id starts from zero.
	again := newListenerMetrics(p, gone)
	again.delivered.Inc()
	if got := testutil.ToFloat64(p.NewDeliveredMetric(gone).(prom.Counter)); got != 1 {
		t.Fatalf("delivered after re-registration = %v, want 1", got)
	}
}

func TestListenerMetricsSecondProviderOnSameRegistryShares(t *testing.T) {
	p1, reg := newListenerProvider(t)
	p2, err := prometheus.NewListenerMetricsProvider(reg)
	if err != nil {
		t.Fatalf("second provider: %v", err)
	}
	id := informer.ListenerID{Informer: "pods", Handler: "h"}
	p1.NewDeliveredMetric(id).Inc()
	p2.NewDeliveredMetric(id).Add(2)
	if got := testutil.ToFloat64(p1.NewDeliveredMetric(id).(prom.Counter)); got != 3 {
		t.Fatalf("delivered = %v, want 3", got)
	}
}

func TestListenerMetricsBadRegisterer(t *testing.T) {
	if _, err := prometheus.NewListenerMetricsProvider(nil); err == nil || !strings.Contains(err.Error(), "must not be nil") {
		t.Fatalf("nil registerer: err = %v", err)
	}
	reg := prom.NewRegistry()
	reg.MustRegister(prom.NewCounter(prom.CounterOpts{Name: prometheus.MetricHandlerPending, Help: "someone else's"}))
	_, err := prometheus.NewListenerMetricsProvider(reg)
	if err == nil || !strings.Contains(err.Error(), "registering fanout metric") {
		t.Fatalf("conflicting collector: err = %v", err)
	}
}

func TestListenerMetricsLint(t *testing.T) {
	p, reg := newListenerProvider(t)
	slowHandlerSequence(newListenerMetrics(p, informer.ListenerID{Informer: "pods", Handler: "slow"}))
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range problems {
		t.Errorf("lint: %s: %s", pr.Metric, pr.Text)
	}
}

func TestHandlerDurationBuckets(t *testing.T) {
	b := prometheus.HandlerDurationBuckets()
	if len(b) != 18 || b[0] != 0.0001 || b[len(b)-1] != 13.1072 {
		t.Fatalf("buckets = %v", b)
	}
}
