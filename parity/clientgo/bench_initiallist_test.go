package parity

import (
	"fmt"
	"testing"
	"time"
)

// initialListObjects is the size of the initial-list scenario.
const initialListObjects = 100_000

// BenchmarkInitialList starts an informer, with one handler registered
// before Run, over a list of 100k objects. One iteration is one whole
// scenario (run with -benchtime=1x). Metrics:
//
//   - sync-ms: from Run to the informer's HasSynced (polled every 100µs).
//   - deliver-ms: from Run to the handler's last initial OnAdd.
//   - B/object: live heap growth (after GC) per object once delivered:
//     the informer's copies of the listed objects, its store and queue.
func BenchmarkInitialList(b *testing.B) {
	quietLogs(b)
	src := newBenchSource(initialListObjects)
	for _, im := range benchImpls() {
		b.Run(fmt.Sprintf("objects=%dk/impl=%s", initialListObjects/1000, im.name), func(b *testing.B) {
			var syncMS, deliverMS, perObject float64
			b.StopTimer()
			for range b.N {
				s := &benchSource{list: src.list}
				h := newBenchHandler(initialListObjects, 0)
				h0 := heapAfterGC()
				t0 := time.Now()
				b.StartTimer()
				inf := startInformer(im, s)
				if _, err := inf.addHandler(h); err != nil {
					b.Fatal(err)
				}
				waitFor(b, "informer sync", inf.HasSynced)
				synced := time.Since(t0)
				waitClosed(b, "initial adds", h.addsDone)
				b.StopTimer()
				syncMS += float64(synced.Microseconds()) / 1e3
				deliverMS += float64(time.Duration(h.lastAdd.Load()-t0.UnixNano()).Microseconds()) / 1e3
				perObject += (float64(heapAfterGC()) - float64(h0)) / initialListObjects
				inf.stop()
			}
			n := float64(b.N)
			b.ReportMetric(syncMS/n, "sync-ms")
			b.ReportMetric(deliverMS/n, "deliver-ms")
			b.ReportMetric(perObject/n, "B/object")
		})
	}
}
