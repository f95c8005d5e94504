package gvrtest

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kfanout/fanout/contrib/clientgo"
)

// Remover is a Factory with RemoveInformer.
type Remover interface {
	Factory
	RemoveInformer(ctx context.Context, gvr schema.GroupVersionResource) error
}

// CheckRemoveInformer checks f's lifecycle of one informer of gvr, which
// f's client must serve: removing a resource f does not hold fails with
// ErrInformerNotHeld and changes nothing; RemoveInformer of the running
// informer stops it (every goroutine it and f started for it returns,
// while f's start context is still alive), the removed informer refuses
// to run again without hanging, and ForResource then makes a fresh
// informer that Start runs and WaitForCacheSync waits for; the same holds
// for an informer stopped by its own Shutdown.
func CheckRemoveInformer(t *testing.T, f Remover, gvr, unknown schema.GroupVersionResource) {
	t.Helper()
	baseline := goleak.IgnoreCurrent()
	gi := f.ForResource(gvr)
	ctx := Start(t, f, gvr)
	if err := f.RemoveInformer(t.Context(), unknown); !errors.Is(err, clientgo.ErrInformerNotHeld) {
		t.Fatalf("RemoveInformer(%v) = %v, want ErrInformerNotHeld", unknown, err)
	}
	if gi.Informer().IsStopped() || f.ForResource(gvr) != gi {
		t.Fatal("removing an unknown resource changed the factory")
	}

	if err := f.RemoveInformer(t.Context(), gvr); err != nil {
		t.Fatalf("RemoveInformer(%v): %v", gvr, err)
	}
	if !gi.Informer().IsStopped() {
		t.Fatal("the removed informer has not stopped")
	}
	if err := goleak.Find(baseline); err != nil {
		t.Fatalf("goroutines of the removed informer remain: %v", err)
	}
	gi.Informer().RunWithContext(ctx) // refuses, and returns
	if err := f.RemoveInformer(t.Context(), gvr); !errors.Is(err, clientgo.ErrInformerNotHeld) {
		t.Fatalf("RemoveInformer twice = %v, want ErrInformerNotHeld", err)
	}

	fresh := f.ForResource(gvr)
	if fresh == gi || fresh.Informer().IsStopped() {
		t.Fatal("ForResource after RemoveInformer did not make a fresh informer")
	}
	f.Start(ctx.Done())
	if got := f.WaitForCacheSync(ctx.Done()); len(got) != 1 || !got[gvr] {
		t.Fatalf("WaitForCacheSync after RemoveInformer = %v, want only %v synced", got, gvr)
	}

	fi, ok := clientgo.FanoutInformer(fresh.Informer())
	if !ok {
		t.Fatal("not a fanout informer")
	}
	if err := fi.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := goleak.Find(baseline); err != nil {
		t.Fatalf("goroutines of the shut-down informer remain: %v", err)
	}
	if got := f.WaitForCacheSync(ctx.Done()); len(got) != 0 {
		t.Fatalf("WaitForCacheSync after Shutdown = %v, want nothing to wait for", got)
	}
	if again := f.ForResource(gvr); again == fresh || again.Informer().IsStopped() {
		t.Fatal("ForResource after the informer's Shutdown did not make a fresh informer")
	}
}
