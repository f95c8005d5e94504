package parity

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// stalledObjects is the number of objects the stalled-handler updates
// cycle over.
const stalledObjects = 1000

// BenchmarkStalledHandler registers a healthy handler and one that blocks
// in its first OnUpdate, sends 100k or 1M updates, and waits for the
// healthy handler to have them all; the stalled handler then has (almost)
// all of them pending. One iteration is one whole scenario (run with
// -benchtime=1x). Metrics:
//
//   - B/pending: live heap growth (after GC) per pending notification of
//     the stalled handler; the objects themselves were allocated before
//     the baseline and are not counted.
//   - healthy-events/s: updates per second of wall time at the healthy
//     handler.
//   - healthy-lag-mean-µs, healthy-lag-p99-µs, healthy-lag-max-µs: delay
//     from the watch send to the healthy handler's call.
func BenchmarkStalledHandler(b *testing.B) {
	quietLogs(b)
	for _, pending := range []int{100_000, 1_000_000} {
		events := benchUpdates(pending, stalledObjects)
		for _, im := range benchImpls() {
			b.Run(fmt.Sprintf("pending=%dk/impl=%s", pending/1000, im.name), func(b *testing.B) {
				var perPending, rate, mean, p99, maxLag float64
				b.StopTimer()
				for range b.N {
					src := newBenchSource(stalledObjects)
					inf := startInformer(im, src)
					release := make(chan struct{})
					healthy := newBenchHandler(stalledObjects, pending)
					healthy.sent = make([]int64, pending)
					healthy.lag = make([]int64, pending)
					stalled := newBenchHandler(stalledObjects, pending)
					stalled.stall = release
					for _, h := range []*benchHandler{healthy, stalled} {
						if _, err := inf.addHandler(h); err != nil {
							b.Fatal(err)
						}
					}
					waitFor(b, "informer sync", inf.HasSynced)
					waitClosed(b, "initial adds", healthy.addsDone)
					waitClosed(b, "initial adds", stalled.addsDone)
					w := src.watcher(b)
					h0 := heapAfterGC()
					t0 := time.Now()
					b.StartTimer()
					go w.send(events, func(i int) { healthy.sent[i] = time.Now().UnixNano() })
					waitClosed(b, "healthy updates", healthy.updatesDone)
					b.StopTimer()
					elapsed := time.Since(t0)
					h1 := heapAfterGC()
					perPending += (float64(h1) - float64(h0)) / float64(pending)
					rate += float64(pending) / elapsed.Seconds()
					lag := slices.Clone(healthy.lag)
					slices.Sort(lag)
					var sum float64
					for _, l := range lag {
						sum += float64(l)
					}
					mean += sum / float64(len(lag)) / 1e3
					p99 += float64(lag[len(lag)*99/100]) / 1e3
					maxLag += float64(lag[len(lag)-1]) / 1e3
					close(release)
					inf.stop()
					runtime.KeepAlive(events)
				}
				n := float64(b.N)
				b.ReportMetric(perPending/n, "B/pending")
				b.ReportMetric(rate/n, "healthy-events/s")
				b.ReportMetric(mean/n, "healthy-lag-mean-µs")
				b.ReportMetric(p99/n, "healthy-lag-p99-µs")
				b.ReportMetric(maxLag/n, "healthy-lag-max-µs")
			})
		}
	}
}
