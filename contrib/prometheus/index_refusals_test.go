package prometheus_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

// An informer whose index function refuses objects counts each refusal in
// informer_index_refusals_total, labelled with the informer's name, when
// ListenerMetrics is its listener metrics provider.
//
// apimachinery's error handlers are replaced for the test: their rate
// limiter remembers the real time of the last error and, inside a synctest
// bubble (whose clock starts in 2000), would sleep for decades.
func TestIndexRefusalsThroughRealInformer(t *testing.T) {
	defer func(old []utilruntime.ErrorHandler) { utilruntime.ErrorHandlers = old }(utilruntime.ErrorHandlers)
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{func(context.Context, error, string, ...any) {}}
	synctest.Test(t, func(t *testing.T) {
		p, reg := newListenerProvider(t)
		refuseB := func(obj any) ([]string, error) {
			if obj.(*corev1.Pod).Name == "b" {
				return nil, errors.New("refused")
			}
			return []string{"x"}, nil
		}
		inf := informer.NewSharedIndexInformerWithOptions(
			podSource(watch.Event{Type: watch.Modified, Object: pod("b", "12")}),
			&corev1.Pod{},
			informer.SharedIndexInformerOptions{ObjectDescription: "refusing-pods", ListenerMetricsProvider: p, Indexers: informer.Indexers{"refuse": refuseB}},
		)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			inf.RunWithContext(ctx)
		}()
		synctest.Wait()
		want := `
# HELP informer_index_refusals_total [ALPHA] Total number of objects whose write to an informer's cache an index function refused.
# TYPE informer_index_refusals_total counter
informer_index_refusals_total{informer="refusing-pods"} 2
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), prometheus.MetricIndexRefusals); err != nil {
			t.Error(err)
		}
		cancel()
		<-done
	})
}
