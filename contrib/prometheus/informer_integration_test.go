package prometheus_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

func pod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// podSource lists pods a@10 and b@11 (list resource version 11), and its
// first watch carries the given events; later watches stay silent. Its
// watches cannot stream the initial list, so the reflector lists, as it does
// for client-go's fake clientsets.
func podSource(events ...watch.Event) informer.ListerWatcher {
	var mu sync.Mutex
	first := true
	return informer.ToListWatcherWithWatchListSemantics(&informer.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{
				ListMeta: metav1.ListMeta{ResourceVersion: "11"},
				Items:    []corev1.Pod{*pod("a", "10"), *pod("b", "11")},
			}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			w := watch.NewFakeWithChanSize(len(events), false)
			if first {
				first = false
				for _, e := range events {
					w.Action(e.Type, e.Object)
				}
			}
			return w, nil
		},
	}, listOnly{})
}

// listOnly says its watches have no watch-list semantics.
type listOnly struct{}

func (listOnly) IsWatchListSemanticsUnSupported() bool { return true }

// TestInformerMetricsThroughRealInformer runs a fanout informer fed by
// RealFIFO with the Prometheus provider in SharedIndexInformerOptions, and
// scrapes the queue depth and the store's resource version once the list
// and two watch events have been handled.
func TestInformerMetricsThroughRealInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, reg := newInformerProvider(t)
		_, id := reserve(t, "real-pods", podsGVR)
		inf := informer.NewSharedIndexInformerWithOptions(
			podSource(
				watch.Event{Type: watch.Added, Object: pod("c", "12")},
				watch.Event{Type: watch.Modified, Object: pod("a", "13")},
			),
			&corev1.Pod{},
			informer.SharedIndexInformerOptions{Identifier: id, InformerMetricsProvider: p},
		)
		var mu sync.Mutex
		var seen []string
		if _, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				mu.Lock()
				seen = append(seen, "add "+obj.(*corev1.Pod).Name)
				mu.Unlock()
			},
			UpdateFunc: func(_, obj any) {
				mu.Lock()
				seen = append(seen, "update "+obj.(*corev1.Pod).Name)
				mu.Unlock()
			},
		}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			inf.RunWithContext(ctx)
		}()
		synctest.Wait()

		mu.Lock()
		got := strings.Join(seen, ",")
		mu.Unlock()
		if want := "add a,add b,add c,update a"; got != want {
			t.Fatalf("handler saw %q, want %q", got, want)
		}
		want := `
# HELP informer_queued_items [ALPHA] Number of items currently queued in the FIFO.
# TYPE informer_queued_items gauge
informer_queued_items{group="",name="real-pods",resource="pods",version="v1"} 0
# HELP informer_store_resource_version [ALPHA] The 15 least significant digits of the resource version of the store.
# TYPE informer_store_resource_version gauge
informer_store_resource_version{group="",name="real-pods",resource="pods",version="v1"} 13
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
			prometheus.MetricQueuedItems, prometheus.MetricStoreResourceVersion); err != nil {
			t.Error(err)
		}
		// Time stands still in the bubble, so every pop took 0s.
		if err := checkLatencyAllZero(reg); err != nil {
			t.Error(err)
		}
		cancel()
		<-done
	})
}

// checkLatencyAllZero checks that the processing latency histogram has
// observations and that all of them are 0.
func checkLatencyAllZero(g interface {
	Gather() ([]*dto.MetricFamily, error)
}) error {
	mfs, err := g.Gather()
	if err != nil {
		return err
	}
	for _, mf := range mfs {
		if mf.GetName() != prometheus.MetricProcessingLatency {
			continue
		}
		if len(mf.GetMetric()) != 1 {
			return fmt.Errorf("%d latency series, want 1", len(mf.GetMetric()))
		}
		h := mf.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() == 0 || h.GetSampleSum() != 0 || h.GetBucket()[0].GetCumulativeCount() != h.GetSampleCount() {
			return fmt.Errorf("latency histogram: count %d sum %v first bucket %d; want count > 0, all 0s",
				h.GetSampleCount(), h.GetSampleSum(), h.GetBucket()[0].GetCumulativeCount())
		}
		return nil
	}
	return fmt.Errorf("no %s", prometheus.MetricProcessingLatency)
}
