package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kfanout/fanout/contrib/clientgo"
)

// TestControllerRuntimeManager runs a controller-runtime manager whose cache
// builds its informers with clientgo.NewSharedIndexInformer, and a small
// reconciler that stamps every labelled ConfigMap of its namespace. The
// reconciler reads through the manager's (fanout-backed) cache; it must
// stamp every object, including ones created while it runs.
func TestControllerRuntimeManager(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	cs := c.clientset(t, "kubeconfig")
	id := runID(t)
	ns, set := "crt-"+id, "crt-"+id
	createNamespace(ctx, t, cs, ns)
	faultObjects(ctx, t, cs, ns, set, 0, 20)

	ctrl.SetLogger(klog.NewKlogr())
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var built atomic.Int32
	mgr, err := ctrl.NewManager(c.config(t, "kubeconfig"), manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache: crcache.Options{
			DefaultNamespaces: map[string]crcache.Config{ns: {}},
			NewInformer: func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, idx toolscache.Indexers) toolscache.SharedIndexInformer {
				built.Add(1)
				return clientgo.NewSharedIndexInformer(lw, obj, resync, idx)
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	reconciled := map[string]int{}
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		var cm corev1.ConfigMap
		if err := mgr.GetClient().Get(ctx, req.NamespacedName, &cm); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		mu.Lock()
		reconciled[req.Name]++
		mu.Unlock()
		if cm.Labels[setLabel] != set || cm.Data["reconciled"] == "yes" {
			return reconcile.Result{}, nil
		}
		cm.Data["reconciled"] = "yes"
		return reconcile.Result{}, mgr.GetClient().Update(ctx, &cm)
	})
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Named("stamp-" + id).Complete(r); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("manager cache did not sync")
	}
	faultObjects(ctx, t, cs, ns, set, 20, 30)

	eventually(t, 60*time.Second, "every ConfigMap stamped", func() string {
		list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err.Error()
		}
		missing := 0
		for _, cm := range list.Items {
			if cm.Data["reconciled"] != "yes" {
				missing++
			}
		}
		if len(list.Items) != 30 || missing > 0 {
			return fmt.Sprintf("%d objects, %d not stamped", len(list.Items), missing)
		}
		return ""
	})
	if built.Load() == 0 {
		t.Fatal("the manager never called clientgo.NewSharedIndexInformer")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reconciled) != 30 {
		t.Errorf("reconciled %d distinct objects, want 30", len(reconciled))
	}
}
