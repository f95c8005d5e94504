package listener

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kfanout/fanout/internal/informermetrics"
)

// countingProvider's metrics only count their updates, atomically: the
// cheapest real provider, so the benchmark shows the listener's own cost.
type countingProvider struct{ updates atomic.Int64 }

type countingMetric struct{ n *atomic.Int64 }

func (m countingMetric) Set(float64)     { m.n.Add(1) }
func (m countingMetric) Inc()            { m.n.Add(1) }
func (m countingMetric) Add(float64)     { m.n.Add(1) }
func (m countingMetric) Observe(float64) { m.n.Add(1) }

func (p *countingProvider) m() countingMetric { return countingMetric{&p.updates} }
func (p *countingProvider) NewPendingMetric(informermetrics.ListenerID) informermetrics.GaugeMetric {
	return p.m()
}
func (p *countingProvider) NewHighWaterMetric(informermetrics.ListenerID) informermetrics.GaugeMetric {
	return p.m()
}
func (p *countingProvider) NewDeliveredMetric(informermetrics.ListenerID) informermetrics.CounterMetric {
	return p.m()
}
func (p *countingProvider) NewCoalescedMetric(informermetrics.ListenerID) informermetrics.CounterMetric {
	return p.m()
}
func (p *countingProvider) NewPanicsMetric(informermetrics.ListenerID) informermetrics.CounterMetric {
	return p.m()
}
func (p *countingProvider) NewHandlerDurationMetric(informermetrics.ListenerID) informermetrics.HistogramMetric {
	return p.m()
}
func (p *countingProvider) NewOldestPendingAgeMetric(informermetrics.ListenerID) informermetrics.GaugeMetric {
	return p.m()
}
func (p *countingProvider) Release(informermetrics.ListenerID) {}

// countHandler counts calls and closes done at the want'th.
type countHandler struct {
	n    atomic.Int64
	want int64
	done chan struct{}
}

func (h *countHandler) hit() {
	if h.n.Add(1) == h.want {
		close(h.done)
	}
}
func (h *countHandler) OnAdd(any, bool)   { h.hit() }
func (h *countHandler) OnUpdate(any, any) { h.hit() }
func (h *countHandler) OnDelete(any)      { h.hit() }

// BenchmarkDistributeMetrics distributes b.N notifications to one handler
// and waits until all are delivered: per engine, with no provider, the
// no-op provider (both skip every metric call and read no clock), the
// no-op provider with a slow-call log (two clock reads per call), and a
// counting provider.
// ns/op is the cost of one delivery.
func BenchmarkDistributeMetrics(b *testing.B) {
	for _, v := range engines {
		eng := v.eng
		for _, c := range []struct {
			name string
			prov informermetrics.ListenerMetricsProvider
			slow time.Duration // SlowHandlerThreshold: 0 (the default) is off
		}{
			{"none", nil, 0},
			{"noop", informermetrics.NoopListenerMetricsProvider{}, 0},
			{"noop-slowlog-1s", informermetrics.NoopListenerMetricsProvider{}, time.Second},
			{"counting", &countingProvider{}, 0},
		} {
			b.Run(v.name+"/"+c.name, func(b *testing.B) {
				p := NewProcessor(ProcessorOptions{})
				up := newUpstream("inf")
				h := &countHandler{want: int64(b.N), done: make(chan struct{})}
				_, err := p.AddListener(mustNew(b, p, h, Binding{Metrics: c.prov, UpstreamHasSynced: up}, Options{
					Engine: eng, SlowHandlerThreshold: c.slow, BacklogWarnThresholds: []int{-1}, // no log output; the check still runs
				}))
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				ran := make(chan struct{})
				go func() { p.Run(ctx); close(ran) }()
				n := NewAdd("obj", false)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					p.Distribute(n, false)
				}
				<-h.done
				b.StopTimer()
				cancel()
				<-ran
			})
		}
	}
}

func mustNew(b *testing.B, p *Processor, h Handler, bind Binding, opts Options) *Listener {
	b.Helper()
	l, err := p.NewListener(h, bind, opts)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkDeliverHooks isolates what the hooks add to one delivery: the
// listener's deliver and pendingChanged bookkeeping for one notification,
// without goroutine handoffs (whose noise on a shared machine hides a few
// nanoseconds in BenchmarkDistributeMetrics). Compare with ns/op there.
func BenchmarkDeliverHooks(b *testing.B) {
	for _, c := range []struct {
		name string
		prov informermetrics.ListenerMetricsProvider
		slow time.Duration
	}{
		{"noop", informermetrics.NoopListenerMetricsProvider{}, 0},
		{"noop-slowlog-1s", informermetrics.NoopListenerMetricsProvider{}, time.Second},
		{"counting", &countingProvider{}, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := NewProcessor(ProcessorOptions{})
			h := &countHandler{want: -1, done: make(chan struct{})}
			l := mustNew(b, p, h, Binding{Metrics: c.prov, UpstreamHasSynced: newUpstream("inf")}, Options{SlowHandlerThreshold: c.slow})
			n := NewAdd("obj", false)
			b.ReportAllocs()
			for b.Loop() {
				l.pendingChanged(1, l.notePending(1))
				l.pendingChanged(0, l.notePending(0))
				l.deliver(n, 0, false)
			}
			l.releaseMetrics()
		})
	}
}
