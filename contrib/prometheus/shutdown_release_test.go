package prometheus_test

import (
	"context"
	"testing"
	"testing/synctest"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

// TestShutdownReleasesSeries: every series of an informer, its own
// (queue, store resourceVersion, latency) and its handlers', is exported
// while it runs and gone once Shutdown has stopped it, while its Run
// context is still alive.
func TestShutdownReleasesSeries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prom.NewRegistry()
		ip, lp := mustProviders(t, reg)
		_, id := reserve(t, "removed-pods", podsGVR)
		inf := informer.NewSharedIndexInformerWithOptions(podSource(), &corev1.Pod{}, informer.SharedIndexInformerOptions{
			Identifier: id, InformerMetricsProvider: ip, ListenerMetricsProvider: lp,
		}).(informer.FanoutInformer)
		if _, err := inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{}, informer.HandlerOptions{Name: "h"}); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { defer close(done); inf.RunWithContext(context.Background()) }()
		synctest.Wait()
		before, err := testutil.GatherAndCount(reg)
		if err != nil {
			t.Fatal(err)
		}
		if before == 0 {
			t.Fatal("no series exported while the informer runs")
		}
		if err := inf.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		<-done
		if after, err := testutil.GatherAndCount(reg); err != nil || after != 0 {
			t.Errorf("%d series left after Shutdown (%d before), err %v", after, before, err)
		}
	})
}

func mustProviders(t *testing.T, reg *prom.Registry) (*prometheus.InformerMetrics, *prometheus.ListenerMetrics) {
	t.Helper()
	ip, err := prometheus.NewInformerMetricsProvider(reg)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := prometheus.NewListenerMetricsProvider(reg)
	if err != nil {
		t.Fatal(err)
	}
	return ip, lp
}
