package informer_test

import (
	"context"
	"fmt"
	"runtime"

	corev1 "k8s.io/api/core/v1"

	cache "github.com/kfanout/fanout/informer"
)

// HandlerOptions opt one handler into overload control; StatsOf reads its
// counters, and HandlersOf lists every handler of an informer with its
// configuration.
func ExampleHandlerOptions() {
	lw, _ := podSource("web-1", "web-2", "web-3")
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
	release := make(chan struct{})
	reg, err := inf.AddEventHandlerWithOptions(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { <-release }, // a stalled handler
	}, cache.HandlerOptions{
		Name:          "reconciler",
		Overflow:      cache.OverflowCoalesce, // past MaxPending: one pending notification per object
		MaxPending:    100,
		RecoverPanics: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)

	// The handler holds the first pod; the other two wait.
	for {
		if st, _ := cache.StatsOf(reg); st.Pending == 2 {
			fmt.Println("pending", st.Pending, "delivered", st.Delivered)
			break
		}
		runtime.Gosched()
	}
	handlers, _ := cache.HandlersOf(inf)
	for _, h := range handlers {
		fmt.Println(h.Name, h.Config.Engine, h.Config.Overflow, h.Config.MaxPending, "synced:", h.Synced)
	}
	close(release)
	cache.WaitForCacheSync(ctx.Done(), reg.HasSynced)
	st, _ := cache.StatsOf(reg)
	fmt.Println("pending", st.Pending, "delivered", st.Delivered)
	// Output:
	// pending 2 delivered 1
	// reconciler direct Coalesce 100 synced: false
	// pending 0 delivered 3
}

// InformerStatsOf reads the figures of the informer itself.
func ExampleInformerStatsOf() {
	lw, _ := podSource("web-1", "web-2")
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	st, _ := cache.InformerStatsOf(inf)
	fmt.Println(st.ObjectType, "synced:", st.Synced, "store:", st.StoreSize, "rv:", st.LastSyncResourceVersion)
	// Output: *v1.Pod synced: true store: 2 rv: 10
}
