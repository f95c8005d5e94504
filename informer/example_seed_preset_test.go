package informer_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	cache "github.com/kfanout/fanout/informer"
)

// SeedPreset keeps every field it does not own and selects the DeltaFIFO
// and the classic engine; pass the result to
// NewSharedIndexInformerWithOptions.
func ExampleSeedPreset() {
	lw, _ := podSource("web-1")
	opts := cache.SeedPreset(cache.SharedIndexInformerOptions{ResyncPeriod: time.Minute})
	inf := cache.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, opts)
	fmt.Println(*opts.InOrder, opts.ListenerEngine == cache.EngineClassic, opts.ResyncPeriod, inf.HasSynced())
	// Output: false true 1m0s false
}
