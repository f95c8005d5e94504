// Package prometheus publishes fanout's informer metrics on
// github.com/prometheus/client_golang.
//
// NewListenerMetricsProvider returns an informer.ListenerMetricsProvider:
// per event handler, the pending backlog, its high water mark, delivered,
// coalesced and panicked calls, the handler's call duration and the age of
// the oldest pending notification, labelled by informer and handler name.
//
// NewInformerMetricsProvider returns client-go's
// informer.InformerMetricsProvider (queue depth, processing latency and the
// store's resource version) under the names and help texts that
// k8s.io/component-base registers, so dashboards built for client-go keep
// working.
//
// Install them per informer through informer.SharedIndexInformerOptions or
// process-wide with informer.SetListenerMetricsProvider and
// informer.SetInformerMetricsProvider, then serve the registry, for
// example with promhttp.Handler().
//
// Metric names and help texts follow Kubernetes conventions: the metrics
// are alpha, so every help text starts with "[ALPHA] ", exactly as
// component-base renders its alpha metrics.
//
// dashboards/fanout-informers.json is a Grafana dashboard over these
// metrics: backlog, oldest pending age, delivery rate, high water,
// coalesced and panics per handler, handler duration, and each informer's
// queue depth and processing latency; every query names a metric this
// package exports.
package prometheus
