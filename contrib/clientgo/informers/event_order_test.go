package informers_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/informer"
)

// eventOrderRuns is how often each factory runs each scenario: the order
// of one run depends on how the informer's goroutines interleave with the
// writes, so one run proves little.
const eventOrderRuns = 50

// podFactory builds a factory over cs and returns it with its pod informer.
type podFactory func(cs *fake.Clientset) (start func(stop <-chan struct{}), sync func(stop <-chan struct{}) bool, shutdown func(), pods cache.SharedIndexInformer)

func clientGoFactory(cs *fake.Clientset) (func(<-chan struct{}), func(<-chan struct{}) bool, func(), cache.SharedIndexInformer) {
	f := k8sinformers.NewSharedInformerFactory(cs, 0)
	return f.Start, func(stop <-chan struct{}) bool { return allSynced(f.WaitForCacheSync(stop)) }, f.Shutdown, f.Core().V1().Pods().Informer()
}

func fanoutFactory(opts ...informers.SharedInformerOption) podFactory {
	return func(cs *fake.Clientset) (func(<-chan struct{}), func(<-chan struct{}) bool, func(), cache.SharedIndexInformer) {
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, opts...)
		return f.Start, func(stop <-chan struct{}) bool { return allSynced(f.WaitForCacheSync(stop)) }, f.Shutdown, f.Core().V1().Pods().Informer()
	}
}

func allSynced[K comparable](m map[K]bool) bool {
	for _, ok := range m {
		if !ok {
			return false
		}
	}
	return true
}

// orderScenario is a controller's life on a fake clientset holding p0:
// before runs between registering the handler and Start, after once the
// cache synced and the watch is open. want is how many handler calls the
// run makes in all.
type orderScenario struct {
	name   string
	before []func(context.Context, *fake.Clientset) error
	after  []func(context.Context, *fake.Clientset) error
	want   int
}

func createPod(name string) func(context.Context, *fake.Clientset) error {
	return func(ctx context.Context, cs *fake.Clientset) error {
		_, err := cs.CoreV1().Pods("ns").Create(ctx, orderPod(name, ""), metav1.CreateOptions{})
		return err
	}
}

func updatePod(name string) func(context.Context, *fake.Clientset) error {
	return func(ctx context.Context, cs *fake.Clientset) error {
		_, err := cs.CoreV1().Pods("ns").Update(ctx, orderPod(name, "updated"), metav1.UpdateOptions{})
		return err
	}
}

func deletePod(name string) func(context.Context, *fake.Clientset) error {
	return func(ctx context.Context, cs *fake.Clientset) error {
		return cs.CoreV1().Pods("ns").Delete(ctx, name, metav1.DeleteOptions{})
	}
}

func orderPod(name, label string) *corev1.Pod {
	p := testPod("ns", name)
	if label != "" {
		p.Labels = map[string]string{"state": label}
	}
	return p
}

var orderScenarios = []orderScenario{{
	// The program: after the sync, create p1, create p2, update
	// p1, delete the pre-existing p0.
	name:  "after-sync",
	after: []func(context.Context, *fake.Clientset) error{createPod("p1"), createPod("p2"), updatePod("p1"), deletePod("p0")},
	want:  5,
}, {
	// Objects created after the handler is registered and just before
	// Start are in the list: initial adds, as in client-go.
	name:   "created-before-start",
	before: []func(context.Context, *fake.Clientset) error{createPod("p1"), createPod("p2")},
	after:  []func(context.Context, *fake.Clientset) error{updatePod("p1"), deletePod("p0")},
	want:   5,
}}

// runOrder runs one scenario once on the factory and returns the handler's
// calls, one line each; a run of initial-list adds is sorted, since the
// fake clientset lists in map order.
func runOrder(t *testing.T, newFactory podFactory, sc orderScenario) string {
	t.Helper()
	cs := fake.NewClientset(orderPod("p0", ""))
	// The watch holds its events back until every write of the scenario
	// is done, then delivers them in one burst, as an API server does
	// after a busy moment: the informer's queue then holds several
	// pending changes at once, which is where the DeltaFIFO and RealFIFO
	// order them differently.
	watching, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	cs.PrependWatchReactor("pods", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := cs.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return true, nil, err
		}
		once.Do(func() { close(watching) }) // the tracker delivers writes from here on
		return true, newGatedWatch(w, release), nil
	})

	var mu sync.Mutex
	var calls []string
	done := make(chan struct{})
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, s)
		if len(calls) == sc.want {
			close(done)
		}
	}
	start, synced, shutdown, pods := newFactory(cs)
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			record(fmt.Sprintf("add %s%s", podName(obj), map[bool]string{true: " (initial)"}[initial]))
		},
		UpdateFunc: func(_, obj any) { record("update " + podName(obj)) },
		DeleteFunc: func(obj any) { record("delete " + podName(obj)) },
	}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, op := range sc.before {
		if err := op(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	defer func() { close(stop); shutdown() }()
	start(stop)
	if !synced(ctx.Done()) {
		t.Fatal("cache did not sync")
	}
	select {
	case <-watching:
	case <-ctx.Done():
		t.Fatal("no watch")
	}
	for _, op := range sc.after {
		if err := op(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	select {
	case <-done:
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%d calls of %d: %v", len(calls), sc.want, calls)
	}
	mu.Lock()
	defer mu.Unlock()
	return strings.Join(sortInitialAdds(calls), ", ")
}

func podName(obj any) string {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	return obj.(*corev1.Pod).Name
}

// sortInitialAdds sorts each run of initial-list adds in calls.
func sortInitialAdds(calls []string) []string {
	out := slices.Clone(calls)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && strings.HasSuffix(out[j], "(initial)") {
			j++
		}
		sort.Strings(out[i:j])
		i = max(j, i+1)
	}
	return out
}

// orderCounts runs sc eventOrderRuns times and counts each call sequence.
func orderCounts(t *testing.T, newFactory podFactory, sc orderScenario) map[string]int {
	counts := map[string]int{}
	for range eventOrderRuns {
		counts[runOrder(t, newFactory, sc)]++
	}
	return counts
}

// TestFactoryEventOrderMatchesClientGo checks that a controller written
// against client-go's typed factory gets, after switching the import to
// this package, exactly the handler calls client-go's own factory gives
// it, in every one of eventOrderRuns runs: the cross-key order of
// creates, updates and deletes, and objects created before Start arriving
// as initial adds. The seed preset's figures (DeltaFIFO, whose Pop hands
// out an object's pending deltas together) are logged for comparison.
func TestFactoryEventOrderMatchesClientGo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each factory many times")
	}
	for _, sc := range orderScenarios {
		t.Run(sc.name, func(t *testing.T) {
			want := orderCounts(t, clientGoFactory, sc)
			got := orderCounts(t, fanoutFactory(), sc)
			seed := orderCounts(t, fanoutFactory(informers.WithFanoutOptions(func(_ informers.Resource, o *informers.FanoutOptions) {
				o.Informer = informer.SeedPreset(o.Informer)
			})), sc)
			t.Logf("client-go: %v", want)
			t.Logf("fanout defaults: %v", got)
			t.Logf("fanout seed preset: %v", seed)
			if len(want) != 1 {
				t.Fatalf("client-go itself varies: %v", want)
			}
			if !maps.Equal(got, want) {
				t.Errorf("fanout's factory: %v, client-go's: %v", got, want)
			}
		})
	}
}

// gatedWatch forwards inner's events once release is closed.
type gatedWatch struct {
	inner watch.Interface
	out   chan watch.Event
	stop  chan struct{}
	once  sync.Once
}

func newGatedWatch(inner watch.Interface, release <-chan struct{}) *gatedWatch {
	w := &gatedWatch{inner: inner, out: make(chan watch.Event), stop: make(chan struct{})}
	go w.run(release)
	return w
}

// run forwards events until inner ends or Stop is called.
func (w *gatedWatch) run(release <-chan struct{}) {
	defer close(w.out)
	select {
	case <-release:
	case <-w.stop:
		return
	}
	for {
		select {
		case ev, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}

func (w *gatedWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *gatedWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.inner.Stop()
	})
}
