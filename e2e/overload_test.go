package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kfanout/fanout/informer"
)

const (
	overloadObjects    = 500
	overloadUpdates    = 50000
	overloadMaxPending = 100
)

// stalled is a recorder whose OnUpdate blocks until release is closed.
type stalled struct {
	*recorder
	release chan struct{}
	once    sync.Once
}

func (s *stalled) OnUpdate(oldObj, newObj any) {
	<-s.release
	s.recorder.OnUpdate(oldObj, newObj)
}

func (s *stalled) unblock() { s.once.Do(func() { close(s.release) }) }

// TestStalledHandlerCoalesces stalls one handler registered with
// OverflowCoalesce while 50,000 updates hit 500 ConfigMaps. Its pending
// notifications must stay bounded by the number of objects (plus the
// threshold), and once released it must reach the current state of every
// object.
func TestStalledHandlerCoalesces(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	cs := c.clientset(t, "kubeconfig")
	id := runID(t)
	ns, set := "overload-"+id, "overload-"+id
	selector := setLabel + "=" + set
	createNamespace(ctx, t, cs, ns)
	faultObjects(ctx, t, cs, ns, set, 0, overloadObjects)

	lw := informer.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns, selectorModifier(selector))
	inf := informer.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, informer.Indexers{})
	h := &stalled{recorder: newRecorder(), release: make(chan struct{})}
	t.Cleanup(h.unblock)
	reg, err := inf.AddEventHandlerWithOptions(h, informer.HandlerOptions{
		Name:       "stalled",
		Overflow:   informer.OverflowCoalesce,
		MaxPending: overloadMaxPending,
	})
	if err != nil {
		t.Fatal(err)
	}
	statser, ok := reg.(interface{ Stats() informer.ListenerStats })
	if !ok {
		t.Fatalf("registration %T has no Stats method", reg)
	}
	s := &subject{name: "fanout", list: inf.GetStore().List}
	startAll(t, &subject{run: inf.RunWithContext})
	waitSynced(t, "informer synced", inf.HasSynced, reg.HasSynced)

	start := time.Now()
	err = parallel(overloadUpdates, 16, func(i int) error {
		patch := fmt.Sprintf(`{"data":{"v":"%d"}}`, i)
		_, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, fmt.Sprintf("cm-%03d", i%overloadObjects), types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("burst: %v", err)
	}
	t.Logf("%d updates in %v", overloadUpdates, time.Since(start).Round(time.Millisecond))
	// The informer's store catches up while the handler is still stalled.
	eventually(t, 120*time.Second, "store current", func() string {
		want, err := serverState(ctx, cs, selector)
		if err != nil {
			return err.Error()
		}
		return diffStates(want, storeState(s.list()))
	})
	st := statser.Stats()
	t.Logf("while stalled: %+v", st)
	if limit := int64(overloadMaxPending + overloadObjects + 2); st.HighWater > limit {
		t.Errorf("high water %d pending notifications, want at most %d (MaxPending + objects)", st.HighWater, limit)
	}
	if st.Coalesced == 0 {
		t.Errorf("stats %+v: no notification was coalesced", st)
	}
	h.unblock()
	want := waitConverged(ctx, t, cs, selector, []*subject{s}, map[string]*recorder{"stalled": h.recorder})
	if len(want) != overloadObjects {
		t.Fatalf("server lists %d objects", len(want))
	}
	_, total := h.sequences()
	if total >= overloadObjects+overloadUpdates {
		t.Errorf("handler got %d calls: nothing was coalesced", total)
	}
	t.Logf("handler calls after release: %d for %d updates; stats %+v", total, overloadUpdates, statser.Stats())
}
