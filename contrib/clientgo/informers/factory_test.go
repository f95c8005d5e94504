package informers_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/informer"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func testPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// start runs f until the test ends and waits for its informers.
func start(t *testing.T, f informers.SharedInformerFactory) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); f.Shutdown() })
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("%v did not sync", typ)
		}
	}
}

// TestFactoryIsClientGos uses the factory as code written for client-go's
// does: typed accessors, listers, handlers, ForResource and InformerFor
// all reach one fanout informer per type.
func TestFactoryIsClientGos(t *testing.T) {
	cs := fake.NewClientset(testPod("a", "p1"), testPod("b", "p2"))
	var _ k8sinformers.SharedInformerFactory = informers.NewSharedInformerFactory(cs, 0)
	f := informers.NewSharedInformerFactory(cs, 0)

	typed := f.Core().V1().Pods().Informer()
	fi, ok := clientgo.FanoutInformer(typed)
	if !ok {
		t.Fatalf("Pods().Informer() is %T, not a fanout informer", typed)
	}
	gi, err := f.ForResource(podsGVR)
	if err != nil {
		t.Fatal(err)
	}
	byResource, _ := clientgo.FanoutInformer(gi.Informer())
	byType, _ := clientgo.FanoutInformer(f.InformerFor(&corev1.Pod{}, nil))
	if byResource != fi || byType != fi {
		t.Fatalf("ForResource and InformerFor reach %p and %p, the typed accessor %p", byResource, byType, fi)
	}
	if _, err := f.ForResource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "foos"}); err == nil {
		t.Error("ForResource of an unknown resource did not fail")
	}

	var mu sync.Mutex
	var added []string
	if _, err := typed.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		mu.Lock()
		defer mu.Unlock()
		added = append(added, obj.(*corev1.Pod).Name)
	}}); err != nil {
		t.Fatal(err)
	}
	start(t, f)
	if got := f.WaitForCacheSync(nil); !got[reflect.TypeOf(&corev1.Pod{})] || len(got) != 1 {
		t.Errorf("WaitForCacheSync = %v", got)
	}
	p, err := f.Core().V1().Pods().Lister().Pods("b").Get("p2")
	if err != nil || p.Name != "p2" {
		t.Fatalf("lister: %v, %v", p, err)
	}
	if !cache.WaitForCacheSync(nil, typed.HasSynced) {
		t.Fatal("not synced")
	}
	if _, err := cs.CoreV1().Pods("a").Create(context.Background(), testPod("a", "p3"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := f.Core().V1().Pods().Lister().Pods("a").Get("p3")
		return err == nil
	})
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(added) == 3
	})
}

// waitFor waits up to a minute for cond, checking it every millisecond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	timeout := time.After(time.Minute)
	for !cond() {
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatal("condition not met within a minute")
		}
	}
}

// TestInformerForKeeps checks what InformerFor makes of the informers a
// custom newFunc returns: fanout's and client-go's are kept as they are.
func TestInformerForKeeps(t *testing.T) {
	cs := fake.NewClientset()
	f := informers.NewSharedInformerFactory(cs, 0)
	lw := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", "", nil)
	cg := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{"x": cache.MetaNamespaceIndexFunc})
	if got := f.InformerFor(&corev1.ConfigMap{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer { return cg }); got != cg {
		t.Errorf("client-go's informer was replaced by %T", got)
	}
	own := clientgo.NewSharedIndexInformer(lw, &corev1.Secret{}, 0, nil)
	if got := f.InformerFor(&corev1.Secret{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer { return own }); got != own {
		t.Errorf("a fanout informer was replaced by %T", got)
	}
	if _, ok := clientgo.FanoutInformer(f.InformerFor(&corev1.Service{}, nil)); !ok {
		t.Error("InformerFor with a nil newFunc did not build a fanout informer")
	}
}

// TestNilClient builds a factory without a client: the accessors work and
// the informer fails only when it lists, as client-go's does.
func TestNilClient(t *testing.T) {
	f := informers.NewSharedInformerFactory(nil, 0)
	if _, ok := clientgo.FanoutInformer(f.Core().V1().Pods().Informer()); !ok {
		t.Fatal("no fanout informer over a nil client")
	}
}

// TestClientGoOptions checks the options named as client-go's on the
// fanout factory: transform and namespace reach the fanout informer.
func TestClientGoOptions(t *testing.T) {
	cs := fake.NewClientset(testPod("a", "p1"))
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTransform(func(obj any) (any, error) {
			if p, ok := obj.(*corev1.Pod); ok {
				p.Labels = map[string]string{"transformed": "yes"}
			}
			return obj, nil
		}),
		informers.WithNamespace("a"))
	lister := f.Core().V1().Pods().Lister()
	start(t, f)
	p, err := lister.Pods("a").Get("p1")
	if err != nil || p.Labels["transformed"] != "yes" {
		t.Fatalf("transformed pod: %v, %v", p, err)
	}
}

// listenerIDs records the listener metrics fanout asks for.
type listenerIDs struct {
	mu  sync.Mutex
	ids []informer.ListenerID
}

type noopMetric struct{}

func (noopMetric) Set(float64)     {}
func (noopMetric) Inc()            {}
func (noopMetric) Add(float64)     {}
func (noopMetric) Observe(float64) {}

func (l *listenerIDs) NewPendingMetric(id informer.ListenerID) informer.GaugeMetric {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids = append(l.ids, id)
	return noopMetric{}
}
func (*listenerIDs) NewHighWaterMetric(informer.ListenerID) informer.GaugeMetric { return noopMetric{} }
func (*listenerIDs) NewDeliveredMetric(informer.ListenerID) informer.ListenerCounterMetric {
	return noopMetric{}
}
func (*listenerIDs) NewCoalescedMetric(informer.ListenerID) informer.ListenerCounterMetric {
	return noopMetric{}
}
func (*listenerIDs) NewPanicsMetric(informer.ListenerID) informer.ListenerCounterMetric {
	return noopMetric{}
}
func (*listenerIDs) NewHandlerDurationMetric(informer.ListenerID) informer.HistogramMetric {
	return noopMetric{}
}
func (*listenerIDs) NewOldestPendingAgeMetric(informer.ListenerID) informer.GaugeMetric {
	return noopMetric{}
}
func (*listenerIDs) Release(informer.ListenerID) {}

// TestWithFanoutOptions sets fanout's informer and handler options for
// pods only: the pod informer gets the metrics provider, and handlers
// registered through client-go's AddEventHandler get RecoverPanics (a
// panicking handler is counted, not fatal) and the invalid MaxPending
// that makes registration fail; nodes keep the defaults.
func TestWithFanoutOptions(t *testing.T) {
	cs := fake.NewClientset(testPod("a", "p1"))
	metrics := &listenerIDs{}
	var seen []informers.Resource
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithFanoutOptions(func(r informers.Resource, o *informers.FanoutOptions) {
		seen = append(seen, r)
		if r.GVR == podsGVR {
			o.Informer.ListenerMetricsProvider = metrics
			o.Handler.RecoverPanics = true
		}
	}), informers.WithFanoutOptions(func(r informers.Resource, o *informers.FanoutOptions) {
		if r.GVR == podsGVR {
			o.Handler.Name = "pod-handler"
		}
	}))
	pods := f.Core().V1().Pods().Informer()
	nodes := f.Core().V1().Nodes().Informer()
	if len(seen) != 2 || seen[0].GVR != podsGVR || reflect.TypeOf(seen[0].Object) != reflect.TypeOf(&corev1.Pod{}) || seen[1].GVR.Resource != "nodes" {
		t.Fatalf("configured %+v", seen)
	}
	reg, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { panic("handler bug") }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{}); err != nil {
		t.Fatal(err)
	}
	start(t, f)
	if !cache.WaitForCacheSync(nil, reg.HasSynced) {
		t.Fatal("the panicking handler wedged its registration")
	}
	inner := reg.(interface {
		Unwrap() informer.ResourceEventHandlerRegistration
	}).Unwrap()
	stats, ok := informer.StatsOf(inner)
	if !ok || stats.Panics != 1 {
		t.Errorf("stats %+v (%v), want 1 panic", stats, ok)
	}
	metrics.mu.Lock()
	ids := append([]informer.ListenerID(nil), metrics.ids...)
	metrics.mu.Unlock()
	if len(ids) != 1 || ids[0].Handler != "pod-handler" {
		t.Errorf("listener metrics for %+v, want one for pod-handler", ids)
	}
}

// TestDefaultsRejectInvalid checks that handler defaults are validated
// like options passed by hand: a negative MaxPending set for pods makes
// their registrations fail, and only theirs.
func TestDefaultsRejectInvalid(t *testing.T) {
	f := informers.NewSharedInformerFactoryWithOptions(fake.NewClientset(), 0, informers.WithFanoutOptions(func(r informers.Resource, o *informers.FanoutOptions) {
		if r.GVR == podsGVR {
			o.Handler.MaxPending = -1
		}
	}))
	if _, err := f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{}); err == nil {
		t.Error("a negative MaxPending default was not applied")
	}
	if _, err := f.Core().V1().Services().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{}); err != nil {
		t.Errorf("services got the pods' defaults: %v", err)
	}
}

// TestFanoutOptionsNew replaces the factory's informer constructor: it is
// called once per type with the options the configure functions set, and
// its informer is the one the factory serves.
func TestFanoutOptionsNew(t *testing.T) {
	cs := fake.NewClientset(testPod("a", "p1"))
	var calls []informer.SharedIndexInformerOptions
	var built informer.SharedIndexInformer
	f := informers.NewSharedInformerFactoryWithOptions(cs, time.Minute, informers.WithFanoutOptions(func(r informers.Resource, o *informers.FanoutOptions) {
		o.Informer = informer.SeedPreset(o.Informer)
		o.New = func(lw informer.ListerWatcher, obj runtime.Object, options informer.SharedIndexInformerOptions) informer.SharedIndexInformer {
			if _, ok := obj.(*corev1.Pod); !ok {
				t.Errorf("example object %T", obj)
			}
			calls = append(calls, options)
			built = informer.NewSharedIndexInformerWithOptions(lw, obj, options)
			return built
		}
	}))
	pods := f.Core().V1().Pods()
	inf := pods.Informer()
	_ = f.Core().V1().Pods().Informer()
	if len(calls) != 1 || calls[0].InOrder == nil || *calls[0].InOrder || calls[0].ListenerEngine != informer.EngineClassic || calls[0].ResyncPeriod != time.Minute {
		t.Fatalf("New called with %+v, want once with the seed preset and a 1m resync", calls)
	}
	if got, ok := clientgo.FanoutInformer(inf); !ok || got != built {
		t.Fatalf("factory serves %T, not the informer New built", inf)
	}
	start(t, f)
	if p, err := pods.Lister().Pods("a").Get("p1"); err != nil || p.Name != "p1" {
		t.Errorf("lister: %v, %v", p, err)
	}
}

// TestFanoutOptionsNewNil reports a constructor that returns nil.
func TestFanoutOptionsNewNil(t *testing.T) {
	f := informers.NewSharedInformerFactoryWithOptions(fake.NewClientset(), 0, informers.WithFanoutOptions(func(_ informers.Resource, o *informers.FanoutOptions) {
		o.New = func(informer.ListerWatcher, runtime.Object, informer.SharedIndexInformerOptions) informer.SharedIndexInformer {
			return nil
		}
	}))
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "FanoutOptions.New returned nil") {
			t.Errorf("panic %v, want one naming FanoutOptions.New", r)
		}
	}()
	f.Core().V1().Pods().Informer()
}
