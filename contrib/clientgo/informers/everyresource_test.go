package informers_test

import (
	"context"
	"path"
	"sort"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
)

// The scope every informer of the table is built with.
const (
	testNamespace = "ns1"
	testSelector  = "app=fanout"
)

// selectTestLabel is the list tweak of both libraries' factories.
func selectTestLabel(o *metav1.ListOptions) { o.LabelSelector = testSelector }

// keyRecorder records the keys a handler was given adds for.
type keyRecorder struct {
	mu      sync.Mutex
	keys    []string
	changed chan struct{} // gets a value after each add
}

func newKeyRecorder() *keyRecorder { return &keyRecorder{changed: make(chan struct{}, 1)} }

func (k *keyRecorder) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		key, _ := cache.MetaNamespaceKeyFunc(obj)
		k.mu.Lock()
		k.keys = append(k.keys, key)
		k.mu.Unlock()
		select {
		case k.changed <- struct{}{}:
		default:
		}
	}}
}

func (k *keyRecorder) sorted() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := append([]string(nil), k.keys...)
	sort.Strings(out)
	return out
}

// served is one resource's informer in a factory under test.
type served struct {
	gi   informers.GenericInformer
	keys *keyRecorder
	reg  cache.ResourceEventHandlerRegistration
}

// serveAll asks f for every resource's informer, checks it is fanout's
// when wantFanout, and registers a key recorder on it.
func serveAll(t *testing.T, f informers.SharedInformerFactory, gvrs []schema.GroupVersionResource, wantFanout bool) map[schema.GroupVersionResource]*served {
	t.Helper()
	out := map[schema.GroupVersionResource]*served{}
	for _, gvr := range gvrs {
		gi, err := f.ForResource(gvr)
		if err != nil {
			t.Fatalf("ForResource(%v): %v", gvr, err)
		}
		if _, ok := clientgo.FanoutInformer(gi.Informer()); ok != wantFanout {
			t.Fatalf("ForResource(%v).Informer() is %T; fanout: %v, want %v", gvr, gi.Informer(), ok, wantFanout)
		}
		s := &served{gi: gi, keys: newKeyRecorder()}
		if s.reg, err = gi.Informer().AddEventHandler(s.keys.handler()); err != nil {
			t.Fatal(err)
		}
		out[gvr] = s
	}
	return out
}

// runAll starts f, waits for every informer and handler, and returns a
// function that stops f and waits for it.
func runAll(t *testing.T, f informers.SharedInformerFactory, s map[schema.GroupVersionResource]*served) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stop := func() { cancel(); f.Shutdown() }
	f.Start(ctx.Done())
	waitCtx, done := context.WithTimeout(ctx, time.Minute)
	defer done()
	for typ, ok := range f.WaitForCacheSync(waitCtx.Done()) {
		if !ok {
			stop()
			t.Fatalf("%v did not sync", typ)
		}
	}
	for gvr, one := range s {
		if !cache.WaitForCacheSync(waitCtx.Done(), one.reg.HasSynced) {
			stop()
			t.Fatalf("the handler of %v did not sync", gvr)
		}
	}
	return stop
}

// resourcePath is the list path of gvr, in ns when ns is not "".
func resourcePath(gvr schema.GroupVersionResource, ns string) string {
	p := "/apis/" + gvr.Group + "/" + gvr.Version
	if gvr.Group == "" {
		p = "/api/" + gvr.Version
	}
	if ns != "" {
		p = path.Join(p, "namespaces", ns)
	}
	return path.Join(p, gvr.Resource)
}

// TestEveryResource serves every resource client-go's ForResource knows
// with fanout, first from a real clientset talking to an API server
// (each informer must list the same path with the same selector as
// client-go's, so with the same scope, and cache and hand over what it
// lists), then from client-go's fake clientset (the namespace and label
// selector must filter as client-go's do, and a later create must reach
// the handler through the watch).
func TestEveryResource(t *testing.T) {
	gvrs := knownResources(t)
	t.Logf("%d resources", len(gvrs))
	namespaced := testRealClientset(t, gvrs)
	for _, want := range []struct {
		gvr        schema.GroupVersionResource
		namespaced bool
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
		{schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, false},
		{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, false},
		{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
		{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, false},
	} {
		if got, ok := namespaced[want.gvr]; !ok || got != want.namespaced {
			t.Errorf("%v: namespaced %v (known %v), want %v", want.gvr, got, ok, want.namespaced)
		}
	}
	testFakeClientset(t, gvrs, namespaced)
}

// testRealClientset is TestEveryResource's first half; it returns which
// resources client-go lists in the factory's namespace.
func testRealClientset(t *testing.T, gvrs []schema.GroupVersionResource) map[schema.GroupVersionResource]bool {
	srv := newListServer(t)
	f := informers.NewSharedInformerFactoryWithOptions(srv.client(t, "fanout"), 0, informers.WithNamespace(testNamespace), informers.WithTweakListOptions(selectTestLabel))
	c := k8sinformers.NewSharedInformerFactoryWithOptions(srv.client(t, "client-go"), 0, k8sinformers.WithNamespace(testNamespace), k8sinformers.WithTweakListOptions(selectTestLabel))
	fs, cs := serveAll(t, f, gvrs, true), serveAll(t, c, gvrs, false)
	stopF := runAll(t, f, fs)
	defer stopF()
	stopC := runAll(t, c, cs)
	defer stopC()

	namespaced := map[schema.GroupVersionResource]bool{}
	for _, gvr := range gvrs {
		t.Run("real/"+gvr.String(), func(t *testing.T) {
			want := resourcePath(gvr, testNamespace)
			if _, ok := srv.listed("client-go", want); !ok {
				want = resourcePath(gvr, "")
			}
			cgSel, cgOK := srv.listed("client-go", want)
			sel, ok := srv.listed("fanout", want)
			if !cgOK || !ok || sel != testSelector || cgSel != testSelector {
				t.Fatalf("list of %s: fanout %v with %q, client-go %v with %q; want both with %q", want, ok, sel, cgOK, cgSel, testSelector)
			}
			ns := ""
			if want == resourcePath(gvr, testNamespace) {
				ns = testNamespace
				namespaced[gvr] = true
			} else {
				namespaced[gvr] = false
			}
			var obj runtime.Object
			var err error
			if ns != "" {
				obj, err = fs[gvr].gi.Lister().ByNamespace(ns).Get("obj-1")
			} else {
				obj, err = fs[gvr].gi.Lister().Get("obj-1")
			}
			if err != nil {
				t.Fatalf("lister: %v", err)
			}
			wantKey := path.Join(ns, "obj-1")
			if key, _ := cache.MetaNamespaceKeyFunc(obj); key != wantKey {
				t.Errorf("lister got %q, want %q", key, wantKey)
			}
			if got := fs[gvr].keys.sorted(); len(got) != 1 || got[0] != wantKey {
				t.Errorf("handler adds %v, want [%s]", got, wantKey)
			}
		})
	}
	return namespaced
}

// testFakeClientset is TestEveryResource's second half.
func testFakeClientset(t *testing.T, gvrs []schema.GroupVersionResource, namespaced map[schema.GroupVersionResource]bool) {
	client := fake.NewClientset()
	create := func(gvr schema.GroupVersionResource, name, ns string, labelled bool) {
		t.Helper()
		obj := newObject(t, gvr)
		m, err := meta.Accessor(obj)
		if err != nil {
			t.Fatal(err)
		}
		m.SetName(name)
		if !namespaced[gvr] {
			ns = ""
		}
		m.SetNamespace(ns)
		if labelled {
			m.SetLabels(map[string]string{"app": "fanout"})
		}
		if err := client.Tracker().Create(gvr, obj, ns); err != nil {
			t.Fatalf("create %v %s/%s: %v", gvr, ns, name, err)
		}
	}
	for _, gvr := range gvrs {
		create(gvr, "obj-1", testNamespace, true)
		create(gvr, "obj-2", testNamespace, false)
		if namespaced[gvr] {
			create(gvr, "obj-3", "ns2", true)
		}
	}
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(testNamespace), informers.WithTweakListOptions(selectTestLabel))
	c := k8sinformers.NewSharedInformerFactoryWithOptions(client, 0, k8sinformers.WithNamespace(testNamespace), k8sinformers.WithTweakListOptions(selectTestLabel))
	fs, cs := serveAll(t, f, gvrs, true), serveAll(t, c, gvrs, false)
	stopF := runAll(t, f, fs)
	defer stopF()
	stopC := runAll(t, c, cs)
	defer stopC()
	for _, gvr := range gvrs {
		create(gvr, "obj-4", testNamespace, true)
	}
	for _, gvr := range gvrs {
		t.Run("fake/"+gvr.String(), func(t *testing.T) {
			ns := ""
			if namespaced[gvr] {
				ns = testNamespace
			}
			want := []string{path.Join(ns, "obj-1"), path.Join(ns, "obj-4")}
			got := waitKeys(fs[gvr].keys, len(want))
			cgGot := waitKeys(cs[gvr].keys, len(want))
			if !equal(got, want) || !equal(cgGot, want) {
				t.Errorf("handler adds: fanout %v, client-go %v; want %v", got, cgGot, want)
			}
			keys := fs[gvr].gi.Informer().GetStore().ListKeys()
			sort.Strings(keys)
			if !equal(keys, want) {
				t.Errorf("cache %v, want %v", keys, want)
			}
		})
	}
}

// newObject returns a new empty object of gvr's type.
func newObject(t *testing.T, gvr schema.GroupVersionResource) runtime.Object {
	t.Helper()
	obj, err := informers.ObjectFor(gvr)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// waitKeys returns k's keys once it has n of them, or after a minute.
func waitKeys(k *keyRecorder, n int) []string {
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for {
		got := k.sorted()
		if len(got) >= n {
			return got
		}
		select {
		case <-k.changed:
		case <-timeout.C:
			return got
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
