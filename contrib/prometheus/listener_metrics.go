package prometheus

import (
	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kfanout/fanout/informer"
)

// Label names of the per-handler metrics.
const (
	// LabelInformer holds ListenerID.Informer.
	LabelInformer = "informer"
	// LabelHandler holds ListenerID.Handler.
	LabelHandler = "handler"
)

// Names of the per-handler metrics.
const (
	MetricHandlerPending          = "informer_handler_pending_notifications"
	MetricHandlerHighWater        = "informer_handler_pending_notifications_high_water"
	MetricHandlerDelivered        = "informer_handler_delivered_notifications_total"
	MetricHandlerCoalesced        = "informer_handler_coalesced_notifications_total"
	MetricHandlerPanics           = "informer_handler_panics_total"
	MetricHandlerDuration         = "informer_handler_duration_seconds"
	MetricHandlerOldestPendingAge = "informer_handler_oldest_pending_notification_age_seconds"
	// MetricIndexRefusals is per informer (label LabelInformer only): the
	// writes to its cache that an index function refused.
	MetricIndexRefusals = "informer_index_refusals_total"
)

// HandlerDurationBuckets returns the buckets of
// informer_handler_duration_seconds: 18 exponential buckets doubling from
// 100µs to about 13s, which resolves both cheap in-memory handlers and
// handlers that call an API server.
func HandlerDurationBuckets() []float64 { return prom.ExponentialBuckets(0.0001, 2, 18) }

// ListenerMetrics is an informer.ListenerMetricsProvider on client_golang.
// It is safe for concurrent use. Two live registrations with the same
// ListenerID share one set of series (counters add up, gauges hold the last
// value written), and Release of either deletes them, so give handlers
// distinct names through informer.HandlerOptions.Name.
type ListenerMetrics struct {
	pending   *prom.GaugeVec
	highWater *prom.GaugeVec
	delivered *prom.CounterVec
	coalesced *prom.CounterVec
	panics    *prom.CounterVec
	duration  *prom.HistogramVec
	oldestAge *prom.GaugeVec
	refusals  *prom.CounterVec
}

var (
	_ informer.ListenerMetricsProvider     = (*ListenerMetrics)(nil)
	_ informer.IndexRefusalMetricsProvider = (*ListenerMetrics)(nil)
)

// NewListenerMetricsProvider creates the per-handler metrics and registers
// them on reg. Calling it again with the same reg returns a provider that
// writes the same series. It fails for a nil reg and when reg already holds
// a different collector under one of the names.
func NewListenerMetricsProvider(reg prom.Registerer) (*ListenerMetrics, error) {
	if reg == nil {
		return nil, errNilRegisterer
	}
	labels := []string{LabelInformer, LabelHandler}
	gauge := func(name, help string) (*prom.GaugeVec, error) {
		return register(reg, prom.NewGaugeVec(prom.GaugeOpts{Name: name, Help: alphaHelp(help)}, labels))
	}
	counter := func(name, help string) (*prom.CounterVec, error) {
		return register(reg, prom.NewCounterVec(prom.CounterOpts{Name: name, Help: alphaHelp(help)}, labels))
	}
	m := &ListenerMetrics{}
	var err error
	if m.pending, err = gauge(MetricHandlerPending,
		"Number of notifications waiting to be delivered to an event handler."); err != nil {
		return nil, err
	}
	if m.highWater, err = gauge(MetricHandlerHighWater,
		"Largest number of notifications that have waited for an event handler at once."); err != nil {
		return nil, err
	}
	if m.delivered, err = counter(MetricHandlerDelivered,
		"Total number of notifications delivered to an event handler."); err != nil {
		return nil, err
	}
	if m.coalesced, err = counter(MetricHandlerCoalesced,
		"Total number of notifications merged into a notification already pending for an event handler."); err != nil {
		return nil, err
	}
	if m.panics, err = counter(MetricHandlerPanics,
		"Total number of event handler calls that panicked."); err != nil {
		return nil, err
	}
	if m.duration, err = register(reg, prom.NewHistogramVec(prom.HistogramOpts{
		Name:    MetricHandlerDuration,
		Help:    alphaHelp("Time taken by one event handler call, in seconds."),
		Buckets: HandlerDurationBuckets(),
	}, labels)); err != nil {
		return nil, err
	}
	if m.oldestAge, err = gauge(MetricHandlerOldestPendingAge,
		"Time the oldest notification pending for an event handler has waited, in seconds."); err != nil {
		return nil, err
	}
	if m.refusals, err = register(reg, prom.NewCounterVec(prom.CounterOpts{
		Name: MetricIndexRefusals,
		Help: alphaHelp("Total number of objects whose write to an informer's cache an index function refused."),
	}, []string{LabelInformer})); err != nil {
		return nil, err
	}
	return m, nil
}

// NewPendingMetric returns the pending gauge of id.
func (m *ListenerMetrics) NewPendingMetric(id informer.ListenerID) informer.GaugeMetric {
	return m.pending.WithLabelValues(id.Informer, id.Handler)
}

// NewHighWaterMetric returns the high water gauge of id.
func (m *ListenerMetrics) NewHighWaterMetric(id informer.ListenerID) informer.GaugeMetric {
	return m.highWater.WithLabelValues(id.Informer, id.Handler)
}

// NewDeliveredMetric returns the delivered counter of id.
func (m *ListenerMetrics) NewDeliveredMetric(id informer.ListenerID) informer.ListenerCounterMetric {
	return m.delivered.WithLabelValues(id.Informer, id.Handler)
}

// NewCoalescedMetric returns the coalesced counter of id.
func (m *ListenerMetrics) NewCoalescedMetric(id informer.ListenerID) informer.ListenerCounterMetric {
	return m.coalesced.WithLabelValues(id.Informer, id.Handler)
}

// NewPanicsMetric returns the panics counter of id.
func (m *ListenerMetrics) NewPanicsMetric(id informer.ListenerID) informer.ListenerCounterMetric {
	return m.panics.WithLabelValues(id.Informer, id.Handler)
}

// NewHandlerDurationMetric returns the handler duration histogram of id.
func (m *ListenerMetrics) NewHandlerDurationMetric(id informer.ListenerID) informer.HistogramMetric {
	return m.duration.WithLabelValues(id.Informer, id.Handler)
}

// NewOldestPendingAgeMetric returns the oldest pending age gauge of id.
func (m *ListenerMetrics) NewOldestPendingAgeMetric(id informer.ListenerID) informer.GaugeMetric {
	return m.oldestAge.WithLabelValues(id.Informer, id.Handler)
}

// NewIndexRefusalsMetric returns the index refusal counter of the informer
// named informer. It is per informer, so Release does not delete it;
// ReleaseIndexRefusals does, when the informer is shut down.
func (m *ListenerMetrics) NewIndexRefusalsMetric(informerName string) informer.ListenerCounterMetric {
	return m.refusals.WithLabelValues(informerName)
}

// Release deletes every series of id. Metrics handed out for id before
// keep accepting updates but are no longer exported.
func (m *ListenerMetrics) Release(id informer.ListenerID) {
	l := prom.Labels{LabelInformer: id.Informer, LabelHandler: id.Handler}
	m.pending.Delete(l)
	m.highWater.Delete(l)
	m.delivered.Delete(l)
	m.coalesced.Delete(l)
	m.panics.Delete(l)
	m.duration.Delete(l)
	m.oldestAge.Delete(l)
}

var _ informer.IndexRefusalMetricsReleaser = (*ListenerMetrics)(nil)

// ReleaseIndexRefusals deletes the index refusal counter of the informer
// named informerName; a shared informer calls it when Shutdown stops it.
func (m *ListenerMetrics) ReleaseIndexRefusals(informerName string) {
	m.refusals.DeleteLabelValues(informerName)
}
