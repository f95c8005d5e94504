package prometheus_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

// TestSyncStatusCollector scrapes an informer whose list is refused twice
// (state ListFailing, two failed attempts, the handler in the same state),
// then once it has synced with a handler still on its initial adds, and
// finally after Remove, when its series are gone.
func TestSyncStatusCollector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prom.NewPedanticRegistry()
		c, err := prometheus.NewSyncStatusCollector(reg)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		fails := 2
		lw := informer.ToListWatcherWithWatchListSemantics(&informer.ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				mu.Lock()
				defer mu.Unlock()
				if fails > 0 {
					fails--
					return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no RBAC"))
				}
				return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "11"},
					Items: []corev1.Pod{*pod("a", "10"), *pod("b", "11")}}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return watch.NewFake(), nil
			},
		}, listOnly{})
		inf := informer.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
		// The default handler's rate limiter reads the real clock and
		// would sleep for decades in the bubble.
		if err := inf.SetWatchErrorHandlerWithContext(func(context.Context, *informer.Reflector, error) {}); err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		if _, err := inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{AddFunc: func(any) { <-release }},
			informer.HandlerOptions{Name: "slow"}); err != nil {
			t.Fatal(err)
		}
		if err := c.Add("pods", inf); err != nil {
			t.Fatal(err)
		}
		if err := c.Add("pods", inf); err == nil {
			t.Fatal("a second Add under one name succeeded")
		}
		if err := c.Add("other", nil); err == nil {
			t.Fatal("Add of a nil informer succeeded")
		}
		names := []string{prometheus.MetricSyncState, prometheus.MetricListFailedAttempts, prometheus.MetricHandlerPendingInitial}
		compare := func(want string) {
			t.Helper()
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
				t.Error(err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { inf.RunWithContext(ctx) })
		defer wg.Wait()
		defer cancel()
		synctest.Wait()
		compare(`
# HELP informer_handler_pending_initial_notifications [ALPHA] Number of initial-list notifications an event handler has not returned from.
# TYPE informer_handler_pending_initial_notifications gauge
informer_handler_pending_initial_notifications{handler="slow",informer="pods"} 0
# HELP informer_list_failed_attempts [ALPHA] Number of lists of an informer that failed in a row before it synced.
# TYPE informer_list_failed_attempts gauge
informer_list_failed_attempts{informer="pods"} 1
# HELP informer_sync_state [ALPHA] 1 for the sync state an informer (handler="") or an event handler registration is in.
# TYPE informer_sync_state gauge
informer_sync_state{handler="",informer="pods",state="ListFailing"} 1
informer_sync_state{handler="slow",informer="pods",state="ListFailing"} 1
`)
		if !informer.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			t.Fatal("not synced")
		}
		synctest.Wait()
		compare(`
# HELP informer_handler_pending_initial_notifications [ALPHA] Number of initial-list notifications an event handler has not returned from.
# TYPE informer_handler_pending_initial_notifications gauge
informer_handler_pending_initial_notifications{handler="slow",informer="pods"} 2
# HELP informer_list_failed_attempts [ALPHA] Number of lists of an informer that failed in a row before it synced.
# TYPE informer_list_failed_attempts gauge
informer_list_failed_attempts{informer="pods"} 0
# HELP informer_sync_state [ALPHA] 1 for the sync state an informer (handler="") or an event handler registration is in.
# TYPE informer_sync_state gauge
informer_sync_state{handler="",informer="pods",state="Synced"} 1
informer_sync_state{handler="slow",informer="pods",state="HandlerPending"} 1
`)
		close(release)
		if !c.Remove("pods") || c.Remove("pods") {
			t.Fatal("Remove reported wrongly")
		}
		if n, err := testutil.GatherAndCount(reg, names...); err != nil || n != 0 {
			t.Fatalf("after Remove: %d series, %v", n, err)
		}
	})
}

// TestSyncStatusCollectorDropsStopped: an informer shut down (as a
// factory's RemoveInformer does) has no series from the next scrape on,
// and a fresh informer can be added under its name; one still running
// cannot be replaced.
func TestSyncStatusCollectorDropsStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prom.NewPedanticRegistry()
		c, err := prometheus.NewSyncStatusCollector(reg)
		if err != nil {
			t.Fatal(err)
		}
		newInf := func() informer.SharedIndexInformer {
			return informer.NewSharedIndexInformer(podSource(), &corev1.Pod{}, 0, nil)
		}
		inf := newInf()
		if err := c.Add("pods", inf); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() { inf.RunWithContext(ctx) })
		synctest.Wait()
		count := func() int {
			t.Helper()
			n, err := testutil.GatherAndCount(reg, prometheus.MetricSyncState)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(); n != 1 {
			t.Fatalf("%d sync state series while running, want 1", n)
		}
		if err := c.Add("pods", newInf()); err == nil {
			t.Fatal("a running informer was replaced")
		}
		if err := inf.(informer.FanoutInformer).Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 0 {
			t.Fatalf("%d sync state series after Shutdown, want 0", n)
		}
		fresh := newInf()
		if err := c.Add("pods", fresh); err != nil {
			t.Fatalf("adding a fresh informer under the stopped one's name: %v", err)
		}
		if n := count(); n != 1 {
			t.Fatalf("%d sync state series for the fresh informer, want 1", n)
		}
		if !c.Remove("pods") {
			t.Fatal("the fresh informer was not held")
		}
	})
}
