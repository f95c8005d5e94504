package e2e

import (
	"context"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
)

// rywWrites is how many writes each read-your-writes loop makes.
const rywWrites = 1000

// TestReadYourWritesE2E is a controller that writes a ConfigMap (a counter
// in its data), waits for the resourceVersion the write returned, then
// reads: through the informer's WaitForResourceVersion its lister must
// return its own write every time, and through its handler registration's
// the handler must have seen it. The handler lags the cache (it takes a
// millisecond per call), so a registration that did not wait for its
// handler would be caught.
func TestReadYourWritesE2E(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	cs := c.clientset(t, "kubeconfig")
	ns := "ryw-" + runID(t)
	createNamespace(ctx, t, cs, ns)
	cms := cs.CoreV1().ConfigMaps(ns)
	cm, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "counter", Namespace: ns},
		Data:       map[string]string{"n": "0"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	runCtx, stop := context.WithCancel(ctx)
	defer func() { stop(); f.Shutdown() }()
	cmInformers := f.Core().V1().ConfigMaps()
	inf, lister := cmInformers.Informer(), cmInformers.Lister().ConfigMaps(ns)
	fi, ok := clientgo.FanoutInformer(inf)
	if !ok {
		t.Fatal("the factory's informer is not a fanout informer")
	}
	// seen is the counter of the last ConfigMap the handler was given.
	var seen atomic.Int64
	record := func(obj any) {
		time.Sleep(time.Millisecond)
		n, _ := strconv.Atoi(obj.(*corev1.ConfigMap).Data["n"])
		seen.Store(int64(n))
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
	})
	if err != nil {
		t.Fatal(err)
	}
	freg, ok := clientgo.FanoutRegistration(reg)
	if !ok {
		t.Fatal("the registration is not a fanout registration")
	}
	f.Start(runCtx.Done())
	waitFactorySynced(runCtx, t, f)

	n := 0
	readsOwn := func(n int) bool {
		got, err := lister.Get("counter")
		return err == nil && got.Data["n"] == strconv.Itoa(n)
	}
	// staleStore and staleHandler count the writes the lister did not
	// yet return, and the handler had not yet seen, when the write call
	// returned: how often a controller that did not wait would have acted
	// on stale state.
	staleStore, staleHandler := 0, 0
	// loop writes rywWrites times, calls wait with each write's
	// resourceVersion and then check(n); it returns how many checks
	// passed, the total time and the waits.
	loop := func(wait func(ctx context.Context, rv string) error, check func(n int) bool) (int, time.Duration, []time.Duration) {
		waitCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		ok := 0
		waits := make([]time.Duration, 0, rywWrites)
		start := time.Now()
		for range rywWrites {
			n++
			cm.Data["n"] = strconv.Itoa(n)
			if cm, err = cms.Update(waitCtx, cm, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("write %d: %v", n, err)
			}
			if seen.Load() < int64(n) {
				staleHandler++
			}
			if !readsOwn(n) {
				staleStore++
			}
			w := time.Now()
			if err := wait(waitCtx, cm.ResourceVersion); err != nil {
				t.Fatalf("write %d: WaitForResourceVersion(%s): %v", n, cm.ResourceVersion, err)
			}
			waits = append(waits, time.Since(w))
			if check(n) {
				ok++
			}
		}
		return ok, time.Since(start), waits
	}

	handlerBehind := 0
	got, total, waits := loop(fi.WaitForResourceVersion, func(n int) bool {
		if seen.Load() < int64(n) {
			handlerBehind++
		}
		return readsOwn(n)
	})
	t.Logf("informer WaitForResourceVersion: lister read its own write %d/%d; %v in all; wait p50 %v, p99 %v, max %v; without the wait the lister would have been stale %d times; after it the handler had not yet seen the write %d times",
		got, rywWrites, total.Round(time.Millisecond), percentile(waits, 50), percentile(waits, 99), percentile(waits, 100), staleStore, handlerBehind)
	if got != rywWrites {
		t.Errorf("informer: the lister returned the controller's own write %d times out of %d", got, rywWrites)
	}

	staleHandler = 0
	got, total, waits = loop(freg.WaitForResourceVersion, func(n int) bool {
		return seen.Load() == int64(n) && readsOwn(n)
	})
	t.Logf("registration WaitForResourceVersion: handler had seen the write %d/%d; %v in all; wait p50 %v, p99 %v, max %v; without the wait the handler would not yet have seen it %d times",
		got, rywWrites, total.Round(time.Millisecond), percentile(waits, 50), percentile(waits, 99), percentile(waits, 100), staleHandler)
	if got != rywWrites {
		t.Errorf("registration: the handler had seen the controller's own write %d times out of %d", got, rywWrites)
	}
}

// percentile returns the p-th percentile (nearest rank) of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	return s[max(i, 0)].Round(time.Microsecond)
}
