package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/internal/streamcheck"
)

// TestSetListOptionsUnderChurn switches the label selector of a running
// informer three times while ConfigMaps are created, relabelled and
// deleted, against the real apiserver. After each switch every handler's
// view (the objects its calls add, update and delete) must become the
// server's list for the current selector, and no handler's stream may
// break its rules: no add of an object it holds, no update or delete of
// one it does not, no update from a state it was not given, no update
// that changes nothing, no resourceVersion going back for a key.
func TestSetListOptionsUnderChurn(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	cs := c.clientset(t, "kubeconfig")
	id := runID(t)
	ns, set := "sel-"+id, "sel-"+id
	createNamespace(ctx, t, cs, ns)
	colors := []string{"red", "blue", "green"}
	const objects = 120
	if err := parallel(objects, 8, func(i int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, selConfigMap(ns, set, i, colors[i%3]), metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}

	scope := func(colorSel string) informer.ListScope {
		return informer.ListScope{Tweak: func(o *metav1.ListOptions) { o.LabelSelector = setLabel + "=" + set + colorSel }}
	}
	current := ",color=red"
	inf := informer.NewSharedIndexInformerWithOptions(&informer.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cs.CoreV1().ConfigMaps(ns).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cs.CoreV1().ConfigMaps(ns).Watch(ctx, o)
		},
	}, &corev1.ConfigMap{}, informer.SharedIndexInformerOptions{ListScope: scope(current)}).(informer.FanoutInformer)
	handlers := []*streamcheck.Checker{streamcheck.New("default"), streamcheck.New("workers")}
	if _, err := inf.AddEventHandler(handlers[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandlerWithOptions(handlers[1], informer.HandlerOptions{Workers: 4}); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(runCtx) }()
	defer func() { stop(); <-done }()
	if !informer.WaitForCacheSync(runCtx.Done(), inf.HasSynced) {
		t.Fatal("not synced")
	}

	converged := func(what string) {
		t.Helper()
		eventually(t, 60*time.Second, what, func() string {
			want, err := serverState(ctx, cs, setLabel+"="+set+current)
			if err != nil {
				return err.Error()
			}
			if d := diffStates(want, storeState(inf.GetStore().List())); d != "" {
				return "cache: " + d
			}
			for _, h := range handlers {
				view, errs := h.State()
				if len(errs) > 0 {
					t.Fatalf("%s: %v", what, errs)
				}
				if d := diffStates(want, view); d != "" {
					return "handler " + h.Name() + ": " + d
				}
			}
			return ""
		})
	}
	converged("before the first switch")
	for i, next := range []string{",color in (red,blue)", ",color=blue", ""} {
		// Churn before, across and after the switch; then let the server
		// settle so that the views can be compared with its list.
		churnCtx, stopChurn := context.WithCancel(ctx)
		churned := make(chan int)
		go func() { churned <- selChurn(churnCtx, cs, ns, set, colors, objects) }()
		time.Sleep(time.Second)
		current = next
		if err := inf.SetListOptions(ctx, scope(current)); err != nil {
			t.Fatalf("switch %d: %v", i+1, err)
		}
		if !inf.HasSynced() {
			t.Fatalf("switch %d: HasSynced false during a switch", i+1)
		}
		time.Sleep(time.Second)
		stopChurn()
		t.Logf("switch %d to %q: %d changes around it", i+1, setLabel+"="+set+current, <-churned)
		converged(fmt.Sprintf("switch %d", i+1))
	}
	if inf.SyncStatus().Switching {
		t.Error("still switching after converging")
	}
	if err := inf.SetListOptions(ctx, informer.ListScope{Tweak: func(o *metav1.ListOptions) { o.FieldSelector = "data.v=1" }}); !apierrors.IsBadRequest(err) {
		t.Errorf("a field label the server refuses: want a BadRequest error, got %v", err)
	}
}

// selConfigMap is ConfigMap i of a set, with a color label.
func selConfigMap(ns, set string, i int, color string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i), Namespace: ns, Labels: map[string]string{setLabel: set, "color": color}},
		Data:       map[string]string{"v": "1"},
	}
}

// selChurn relabels, creates and deletes ConfigMaps of the set until ctx
// ends, and returns how many changes it made.
func selChurn(ctx context.Context, cs kubernetes.Interface, ns, set string, colors []string, objects int) int {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 27))
	cms := cs.CoreV1().ConfigMaps(ns)
	n := 0
	for ctx.Err() == nil {
		i := rng.IntN(objects + objects/4)
		name := fmt.Sprintf("cm-%03d", i)
		var err error
		switch rng.IntN(6) {
		case 0:
			err = cms.Delete(ctx, name, metav1.DeleteOptions{})
		case 1:
			_, err = cms.Create(ctx, selConfigMap(ns, set, i, colors[rng.IntN(3)]), metav1.CreateOptions{})
		default:
			var cm *corev1.ConfigMap
			if cm, err = cms.Get(ctx, name, metav1.GetOptions{}); err == nil {
				cm.Labels["color"] = colors[rng.IntN(3)]
				cm.Data["v"] = strconv.Itoa(n)
				_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
			}
		}
		if err == nil {
			n++
		}
		time.Sleep(5 * time.Millisecond)
	}
	return n
}

// TestSetListOptionsClusterScopedE2E: several namespaces are refused for a
// cluster-scoped resource on the real apiserver, also when it holds no
// object (this cluster has no kubelet, so no Node): the apiserver refuses
// to select nodes by metadata.namespace. PersistentVolumes have no field
// label conversion of their own, so the apiserver accepts the selector and
// an empty resource cannot be told apart (documented): the scope is taken
// and selects nothing.
func TestSetListOptionsClusterScopedE2E(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	cs := c.clientset(t, "kubeconfig")
	scope := informer.ListScope{Namespaces: []string{"a", "b"}}
	setScope := func(resource string, example runtime.Object) (int, error) {
		lw := informer.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), resource, metav1.NamespaceAll, func(*metav1.ListOptions) {})
		list, err := lw.ListWithContext(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			t.Fatal(err)
		}
		inf := informer.NewSharedIndexInformer(lw, example, 0, nil).(informer.FanoutInformer)
		return len(items), inf.SetListOptions(ctx, scope)
	}
	for resource, example := range map[string]runtime.Object{"nodes": &corev1.Node{}, "namespaces": &corev1.Namespace{}} {
		n, err := setScope(resource, example)
		if !errors.Is(err, informer.ErrInvalidListScope) {
			t.Fatalf("%s (%d in the cluster): SetListOptions with namespaces returned %v, want ErrInvalidListScope", resource, n, err)
		}
		t.Logf("%s (%d in the cluster): %v", resource, n, err)
	}
	n, err := setScope("persistentvolumes", &corev1.PersistentVolume{})
	t.Logf("persistentvolumes (%d in the cluster; empty is the documented limit): SetListOptions with namespaces returned %v", n, err)
}
