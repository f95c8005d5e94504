package parity

import (
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkUpstream measures what an informer spends per watch event
// upstream of its handlers: the reflector's watch loop, the queue's Add
// and Pop, the store write and the event processing up to the (empty)
// distribution. It is FanOut's scenario with no handler registered: the
// end is seen by polling the store for the last update. One iteration is
// one whole scenario (run with -benchtime=1x). Metrics: cpu-ns/event
// (process CPU, GC included, per update), allocs/event, B/event, events/s.
func BenchmarkUpstream(b *testing.B) {
	quietLogs(b)
	events := benchUpdates(fanOutUpdates, fanOutObjects)
	lastKey := "bench/" + benchName((len(events)-1)%fanOutObjects)
	lastRV := strconv.Itoa(len(events) + 1)
	for _, im := range benchImpls() {
		b.Run("impl="+im.name, func(b *testing.B) {
			var cost sendCost
			b.StopTimer()
			for range b.N {
				src := newBenchSource(fanOutObjects)
				inf := startInformer(im, src)
				waitFor(b, "informer sync", inf.HasSynced)
				get := storeGetter(b, inf.benchInformer)
				w := src.watcher(b)
				cost.measure(b, w, events, func() {
					waitFor(b, "last update in the store", func() bool {
						obj, ok, err := get(lastKey)
						return err == nil && ok && obj.(metav1.Object).GetResourceVersion() == lastRV
					})
				})
				inf.stop()
			}
			n := float64(b.N) * float64(len(events))
			cost.report(b, n, n, "cpu-ns/event")
		})
	}
}

// storeGetter returns the GetByKey of inf's store.
func storeGetter(b *testing.B, inf benchInformer) func(key string) (any, bool, error) {
	switch i := inf.(type) {
	case cgBenchInformer:
		return i.GetStore().GetByKey
	case foBenchInformer:
		return i.GetStore().GetByKey
	}
	b.Fatalf("unknown informer %T", inf)
	return nil
}
