package informer_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	cache "github.com/kfanout/fanout/informer"
)

// One registration opts into every overload control at once: coalescing
// past a bound, keyed workers and recovered panics; StatsOf reads its
// counters.
func ExampleHandlerOptions_overload() {
	lw, _ := podSource("web-1", "web-2", "web-3")
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
	h := cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}}

	reg, err := inf.AddEventHandlerWithOptions(h, cache.HandlerOptions{
		Name:          "pod-reconciler",       // in logs and metrics
		Overflow:      cache.OverflowCoalesce, // past MaxPending: one pending notification per object
		MaxPending:    1000,
		Workers:       8,    // keyed parallel dispatch, per-object order kept
		RecoverPanics: true, // log and count a panic, keep going, HasSynced cannot wedge
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	cache.WaitForCacheSync(ctx.Done(), reg.HasSynced)
	stats, _ := cache.StatsOf(reg) // Pending, HighWater, Delivered, Coalesced, OldestPendingAge, Panics
	fmt.Println("delivered", stats.Delivered, "panics", stats.Panics)
	// Output: delivered 3 panics 0
}
