package informer_test

import (
	"fmt"
	"time"

	cache "github.com/kfanout/fanout/informer"
)

// SeedPreset keeps every field it does not own and selects the DeltaFIFO
// and the classic engine; pass the result to
// NewSharedIndexInformerWithOptions.
func ExampleSeedPreset() {
	opts := cache.SeedPreset(cache.SharedIndexInformerOptions{ResyncPeriod: time.Minute})
	fmt.Println(*opts.InOrder, opts.ListenerEngine == cache.EngineClassic, opts.ResyncPeriod)
	// Output: false true 1m0s
}
