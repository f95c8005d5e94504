package parity

import (
	"fmt"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/watch"
)

const (
	// fanOutObjects and fanOutUpdates are the fan-out scenario:
	// 200k updates over 1k objects.
	fanOutObjects = 1000
	fanOutUpdates = 200_000
)

// BenchmarkFanOut sends fanOutUpdates watch updates over fanOutObjects
// objects through an informer with 1, 10 and 100 handlers, and measures
// from the first send until every handler has had the last update. One
// iteration is one whole scenario (run with -benchtime=1x). Metrics:
//
//   - events/s: updates through the informer per second of wall time.
//   - cpu-ns/delivery: process CPU (user+sys, all goroutines, GC
//     included) per handler call.
//   - allocs/event, B/event: heap allocations per update (all handlers).
//   - goroutines/handler: goroutines added per registered handler.
func BenchmarkFanOut(b *testing.B) {
	quietLogs(b)
	events := benchUpdates(fanOutUpdates, fanOutObjects)
	for _, handlers := range []int{1, 10, 100} {
		for _, im := range benchImpls() {
			b.Run(fmt.Sprintf("handlers=%d/impl=%s", handlers, im.name), func(b *testing.B) {
				benchFanOut(b, im, handlers, events)
			})
		}
	}
}

func benchFanOut(b *testing.B, im benchImpl, handlers int, events []watch.Event) {
	var cost sendCost
	var goroutines float64
	b.StopTimer()
	for range b.N {
		src := newBenchSource(fanOutObjects)
		inf := startInformer(im, src)
		waitFor(b, "informer sync", inf.HasSynced)
		g0 := runtime.NumGoroutine()
		hs := make([]*benchHandler, handlers)
		synced := make([]func() bool, handlers)
		for i := range hs {
			hs[i] = newBenchHandler(fanOutObjects, len(events))
			var err error
			if synced[i], err = inf.addHandler(hs[i]); err != nil {
				b.Fatal(err)
			}
		}
		for i, h := range hs {
			waitClosed(b, "initial adds", h.addsDone)
			waitFor(b, "handler sync", synced[i])
		}
		goroutines += float64(runtime.NumGoroutine()-g0) / float64(handlers)
		w := src.watcher(b)
		cost.measure(b, w, events, func() {
			for _, h := range hs {
				waitClosed(b, "updates", h.updatesDone)
			}
		})
		inf.stop()
	}
	n := float64(b.N) * float64(len(events))
	cost.report(b, n, n*float64(handlers), "cpu-ns/delivery")
	b.ReportMetric(goroutines/float64(b.N), "goroutines/handler")
}
