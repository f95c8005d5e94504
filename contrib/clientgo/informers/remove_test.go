package informers_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
)

// TestRemoveInformer: RemoveInformer stops one informer of a running
// factory (every goroutine it started returns while the factory's context
// is alive, the others keep running), a later Informer() and ForResource
// return one fresh informer that Start runs and WaitForCacheSync waits
// for, the removed one refuses to run again without hanging; an
// informer's own Shutdown drops it too; removing a type the factory does
// not hold is ErrInformerNotHeld and changes nothing.
func TestRemoveInformer(t *testing.T) {
	cs := fake.NewClientset(testPod("ns", "a"), &corev1.ConfigMap{})
	f := informers.NewSharedInformerFactory(cs, 0)
	r, ok := f.(informers.InformerRemover)
	if !ok {
		t.Fatal("the factory has no RemoveInformer")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); f.Shutdown() })
	cms := f.Core().V1().ConfigMaps().Informer()
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	baseline := goleak.IgnoreCurrent() // the ConfigMap informer's goroutines

	old := f.Core().V1().Pods().Informer()
	f.Start(ctx.Done())
	if got := f.WaitForCacheSync(ctx.Done()); !got[reflect.TypeFor[*corev1.Pod]()] {
		t.Fatalf("WaitForCacheSync = %v", got)
	}

	if err := r.RemoveInformer(t.Context(), &corev1.Secret{}); !errors.Is(err, clientgo.ErrInformerNotHeld) {
		t.Fatalf("RemoveInformer(Secret) = %v, want ErrInformerNotHeld", err)
	}
	if old.IsStopped() || !same(f.Core().V1().Pods().Informer(), old) {
		t.Fatal("removing a type not held changed the factory")
	}

	if err := r.RemoveInformer(t.Context(), &corev1.Pod{}); err != nil {
		t.Fatalf("RemoveInformer(Pod): %v", err)
	}
	if !old.IsStopped() {
		t.Fatal("the removed informer has not stopped")
	}
	if err := goleak.Find(baseline); err != nil {
		t.Fatalf("goroutines of the removed informer remain: %v", err)
	}
	if cms.IsStopped() {
		t.Fatal("removing pods stopped the ConfigMap informer")
	}
	old.RunWithContext(ctx) // refuses, and returns
	if err := r.RemoveInformer(t.Context(), &corev1.Pod{}); !errors.Is(err, clientgo.ErrInformerNotHeld) {
		t.Fatalf("RemoveInformer twice = %v, want ErrInformerNotHeld", err)
	}

	fresh := f.Core().V1().Pods().Informer()
	if same(fresh, old) || fresh.IsStopped() {
		t.Fatal("Informer() after RemoveInformer did not return a fresh informer")
	}
	gi, err := f.ForResource(podsGVR)
	if err != nil || !same(gi.Informer(), fresh) {
		t.Fatalf("ForResource(pods) = %v, %v; want the fresh informer", gi, err)
	}
	events := make(chan string, 1)
	if _, err := fresh.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		events <- obj.(*corev1.Pod).Name
	}}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx.Done())
	if got := f.WaitForCacheSync(ctx.Done()); len(got) != 2 || !got[reflect.TypeFor[*corev1.Pod]()] {
		t.Fatalf("WaitForCacheSync after RemoveInformer = %v", got)
	}
	if got := <-events; got != "a" {
		t.Fatalf("the fresh informer delivered %q", got)
	}

	fi, ok := clientgo.FanoutInformer(fresh)
	if !ok {
		t.Fatal("not a fanout informer")
	}
	if err := fi.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := goleak.Find(baseline); err != nil {
		t.Fatalf("goroutines of the shut-down informer remain: %v", err)
	}
	if got := f.WaitForCacheSync(ctx.Done()); len(got) != 1 {
		t.Fatalf("WaitForCacheSync after Shutdown = %v, want the ConfigMap informer only", got)
	}
	if again := f.Core().V1().Pods().Informer(); same(again, fresh) || again.IsStopped() {
		t.Fatal("Informer() after the informer's Shutdown did not return a fresh informer")
	}
}

// TestRemoveUnsyncedInformer: an informer removed before it synced (its
// list fails, as when the resource's CRD is gone) leaves nothing for
// WaitForCacheSync to wait for.
func TestRemoveUnsyncedInformer(t *testing.T) {
	f := informers.NewSharedInformerFactory(nil, 0) // every list fails
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); f.Shutdown() })
	inf := f.Core().V1().Pods().Informer()
	f.Start(ctx.Done())
	if err := f.(informers.InformerRemover).RemoveInformer(t.Context(), &corev1.Pod{}); err != nil {
		t.Fatal(err)
	}
	if inf.HasSynced() || !inf.IsStopped() {
		t.Fatal("want a stopped, unsynced informer")
	}
	if got := f.WaitForCacheSync(ctx.Done()); len(got) != 0 {
		t.Fatalf("WaitForCacheSync = %v, want nothing to wait for", got)
	}
}

// TestRemoveInformerWaitWithContext: on client-go v0.36+ (the method is
// found by name, so the test builds against v0.35 and skips there),
// client-go's WaitForCacheSyncWithContext waits for the factory's fanout
// informers and is not held up by one removed before it synced.
func TestRemoveInformerWaitWithContext(t *testing.T) {
	f := informers.NewSharedInformerFactory(fake.NewClientset(testPod("ns", "a")), 0)
	wait := reflect.ValueOf(f).MethodByName("WaitForCacheSyncWithContext")
	if !wait.IsValid() {
		t.Skip("client-go v0.35 has no WaitForCacheSyncWithContext")
	}
	synced := func(ctx context.Context) (map[reflect.Type]bool, error) {
		res := wait.Call([]reflect.Value{reflect.ValueOf(ctx)})[0]
		m, _ := res.FieldByName("Synced").Interface().(map[reflect.Type]bool)
		err, _ := res.FieldByName("Err").Interface().(error)
		return m, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); f.Shutdown() })
	pods := f.Core().V1().Pods().Informer()
	nilFactory := informers.NewSharedInformerFactory(nil, 0) // lists fail
	t.Cleanup(nilFactory.Shutdown)
	stuck := nilFactory.Core().V1().Secrets().Informer()
	f.Start(ctx.Done())
	nilFactory.Start(ctx.Done())
	got, err := synced(ctx)
	if err != nil || !got[reflect.TypeFor[*corev1.Pod]()] || !pods.HasSynced() {
		t.Fatalf("WaitForCacheSyncWithContext = %v, %v; want pods synced", got, err)
	}
	if err := nilFactory.(informers.InformerRemover).RemoveInformer(t.Context(), &corev1.Secret{}); err != nil {
		t.Fatal(err)
	}
	if stuck.HasSynced() {
		t.Fatal("the failing informer synced")
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	res := reflect.ValueOf(nilFactory).MethodByName("WaitForCacheSyncWithContext").Call([]reflect.Value{reflect.ValueOf(wctx)})[0]
	if err, _ := res.FieldByName("Err").Interface().(error); err != nil {
		t.Fatalf("WaitForCacheSyncWithContext after removing the unsynced informer: %v", err)
	}
}

// same reports whether a and b are the same fanout informer; client-go
// v0.36+'s generated Informer() wraps it anew on every call.
func same(a, b cache.SharedIndexInformer) bool {
	fa, okA := clientgo.FanoutInformer(a)
	fb, okB := clientgo.FanoutInformer(b)
	return okA && okB && fa == fb
}
