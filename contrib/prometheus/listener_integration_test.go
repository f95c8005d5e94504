package prometheus_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

var gaugesAndCounters = []string{
	prometheus.MetricHandlerPending,
	prometheus.MetricHandlerDelivered,
	prometheus.MetricHandlerOldestPendingAge,
}

// handlerSeries renders the pending, delivered and oldest-age series of
// handler "slow" on informer "pods" in exposition format.
func handlerSeries(pending, delivered, oldest float64) string {
	return fmt.Sprintf(`
# HELP informer_handler_delivered_notifications_total [ALPHA] Total number of notifications delivered to an event handler.
# TYPE informer_handler_delivered_notifications_total counter
informer_handler_delivered_notifications_total{handler="slow",informer="pods"} %v
# HELP informer_handler_oldest_pending_notification_age_seconds [ALPHA] Time the oldest notification pending for an event handler has waited, in seconds.
# TYPE informer_handler_oldest_pending_notification_age_seconds gauge
informer_handler_oldest_pending_notification_age_seconds{handler="slow",informer="pods"} %v
# HELP informer_handler_pending_notifications [ALPHA] Number of notifications waiting to be delivered to an event handler.
# TYPE informer_handler_pending_notifications gauge
informer_handler_pending_notifications{handler="slow",informer="pods"} %v
`, delivered, oldest, pending)
}

// highWater returns handler "slow"'s high-water gauge.
func highWater(t *testing.T, reg *prom.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == prometheus.MetricHandlerHighWater && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return -1
}

// durationCount returns the sample count and sum of handler "slow"'s
// duration histogram.
func durationCount(t *testing.T, reg *prom.Registry) (uint64, float64) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == prometheus.MetricHandlerDuration && len(mf.GetMetric()) == 1 {
			h := mf.GetMetric()[0].GetHistogram()
			return h.GetSampleCount(), h.GetSampleSum()
		}
	}
	return 0, 0
}

// TestListenerMetricsThroughRealInformer stalls a handler of a real fanout
// informer (provider in SharedIndexInformerOptions) on its first call and
// scrapes its series while stalled, after it drains, and after removal.
func TestListenerMetricsThroughRealInformer(t *testing.T) {
	for _, eng := range []informer.ListenerEngine{informer.EngineClassic, informer.EngineDirect} {
		t.Run(eng.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { scrapeStalledHandler(t, eng) })
		})
	}
}

func scrapeStalledHandler(t *testing.T, eng informer.ListenerEngine) {
	p, reg := newListenerProvider(t)
	inf := informer.NewSharedIndexInformerWithOptions(
		podSource(
			watch.Event{Type: watch.Added, Object: pod("c", "12")},
			watch.Event{Type: watch.Modified, Object: pod("a", "13")},
		),
		&corev1.Pod{},
		informer.SharedIndexInformerOptions{ObjectDescription: "pods", ListenerMetricsProvider: p, ListenerEngine: eng},
	)
	release := make(chan struct{})
	first := true
	stall := func() {
		if first {
			first = false
			<-release
		}
	}
	reg1, err := inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { stall() },
		UpdateFunc: func(any, any) { stall() },
	}, informer.HandlerOptions{Name: "slow", SlowHandlerThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	synctest.Wait()

	// add a is in the handler; add b, add c and update a wait.
	if err := testutil.GatherAndCompare(reg, strings.NewReader(handlerSeries(3, 1, 0)), gaugesAndCounters...); err != nil {
		t.Fatalf("stalled: %v", err)
	}
	// 4 if add b arrived before the handler's goroutine took add a:
	// scheduling decides.
	hw := highWater(t, reg)
	if hw != 3 && hw != 4 {
		t.Fatalf("high water = %v, want 3 or 4", hw)
	}
	time.Sleep(2500 * time.Millisecond)
	synctest.Wait()
	if err := testutil.GatherAndCompare(reg, strings.NewReader(handlerSeries(3, 1, 2)), gaugesAndCounters...); err != nil {
		t.Fatalf("stalled 2.5s: %v", err)
	}
	if n, _ := durationCount(t, reg); n != 0 {
		t.Fatalf("duration samples while the first call runs = %d, want 0", n)
	}

	close(release)
	synctest.Wait()
	if err := testutil.GatherAndCompare(reg, strings.NewReader(handlerSeries(0, 4, 0)), gaugesAndCounters...); err != nil {
		t.Fatalf("drained: %v", err)
	}
	if got := highWater(t, reg); got != hw {
		t.Fatalf("high water after draining = %v, want %v", got, hw)
	}
	if n, sum := durationCount(t, reg); n != 4 || sum != 2.5 {
		t.Fatalf("duration samples = %d, sum %v; want 4, 2.5", n, sum)
	}

	if err := informer.ShutDownEventHandler(inf, reg1); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg, append(gaugesAndCounters, prometheus.MetricHandlerHighWater)...); err != nil || n != 0 {
		t.Fatalf("series after removal = %d (%v), want 0", n, err)
	}
}
