package prometheus_test

import (
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

// noopMetric and noopProvider mirror fanout's default no-op provider,
// which lives in an internal package.
type noopMetric struct{}

func (noopMetric) Set(float64)     {}
func (noopMetric) Inc()            {}
func (noopMetric) Add(float64)     {}
func (noopMetric) Observe(float64) {}

type noopProvider struct{}

func (noopProvider) NewPendingMetric(informer.ListenerID) informer.GaugeMetric   { return noopMetric{} }
func (noopProvider) NewHighWaterMetric(informer.ListenerID) informer.GaugeMetric { return noopMetric{} }
func (noopProvider) NewDeliveredMetric(informer.ListenerID) informer.ListenerCounterMetric {
	return noopMetric{}
}
func (noopProvider) NewCoalescedMetric(informer.ListenerID) informer.ListenerCounterMetric {
	return noopMetric{}
}
func (noopProvider) NewPanicsMetric(informer.ListenerID) informer.ListenerCounterMetric {
	return noopMetric{}
}
func (noopProvider) NewHandlerDurationMetric(informer.ListenerID) informer.HistogramMetric {
	return noopMetric{}
}
func (noopProvider) NewOldestPendingAgeMetric(informer.ListenerID) informer.GaugeMetric {
	return noopMetric{}
}
func (noopProvider) Release(informer.ListenerID) {}

// benchmarkDelivery makes the metric calls of one notification's life in a
// listener: pending up and high water on arrival, then pending down,
// oldest age, delivered and handler duration on delivery.
func benchmarkDelivery(b *testing.B, p informer.ListenerMetricsProvider) {
	m := newListenerMetrics(p, informer.ListenerID{Informer: "pods", Handler: "bench"})
	b.ReportAllocs()
	for b.Loop() {
		m.pending.Set(1)
		m.highWater.Set(1)
		m.pending.Set(0)
		m.oldestAge.Set(0)
		m.delivered.Inc()
		m.duration.Observe(0.0003)
	}
}

func BenchmarkDeliveryMetrics(b *testing.B) {
	b.Run("noop", func(b *testing.B) { benchmarkDelivery(b, noopProvider{}) })
	b.Run("prometheus", func(b *testing.B) {
		p, err := prometheus.NewListenerMetricsProvider(prom.NewRegistry())
		if err != nil {
			b.Fatal(err)
		}
		benchmarkDelivery(b, p)
	})
}

// BenchmarkDeliveryMetricsParallel has every goroutine update its own
// handler's series, as separate listeners do.
func BenchmarkDeliveryMetricsParallel(b *testing.B) {
	p, err := prometheus.NewListenerMetricsProvider(prom.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		m := newListenerMetrics(p, informer.ListenerID{Informer: "pods", Handler: b.Name()})
		for pb.Next() {
			m.pending.Set(1)
			m.delivered.Inc()
			m.duration.Observe(0.0003)
		}
	})
}
