package parity

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// BenchmarkRealInitialSync starts a Pod informer, with one handler
// registered before Run, over the realistic server holding N generated
// Pods (FANOUT_REAL_PODS, default 10k and 100k), through a client-go
// clientset speaking protobuf (and JSON at the smallest size), by a paged
// list and watch (mode=list, 500 per page) or each library's default
// (mode=default: both stream by watch-list, as the defaults do; the
// fanout-listwatch column turns fanout's watch-list gate off). One iteration is one sync
// (run with -benchtime=1x). Metrics:
//
//   - sync-ms: from Run to the informer's HasSynced (polled every 100µs).
//   - deliver-ms: from Run to the handler's last initial OnAdd.
//   - cpu-ms: process CPU (all goroutines, the server's and the decoding
//     included) from Run to the last OnAdd.
//   - peak-B/pod: the highest heap (live and unswept objects, sampled
//     every ms) during the sync, above the heap before it, per Pod.
//   - kept-B/pod: the live heap after GC once synced, above the heap
//     before, per Pod: the cache and everything the informer keeps.
func BenchmarkRealInitialSync(b *testing.B) {
	quietLogs(b)
	counts := realPodCounts(b, 10_000, 100_000)
	for ci, n := range counts {
		s := newPodServer(b, realPods(1, n))
		codecs := []string{"proto"}
		if ci == 0 {
			codecs = append(codecs, "json")
		}
		for _, codec := range codecs {
			for _, mode := range []string{"list", "default"} {
				for _, im := range realImpls("clientgo", "clientgo-nomf", "fanout", "fanout-listwatch", "fanout-lean", "fanout-leanest") {
					b.Run(fmt.Sprintf("pods=%s/codec=%s/mode=%s/impl=%s", kName(n), codec, mode, im.name), func(b *testing.B) {
						benchRealSync(b, s, im, codec, mode, n)
					})
				}
			}
		}
		s.srv.CloseClientConnections()
	}
}

func benchRealSync(b *testing.B, s *realServer, im realImpl, codec, mode string, n int) {
	im.setup(b)
	measureRealSync(b, s, n, func() realInformer {
		return im.make(podListWatch(im.clientset(b, s, codec), mode), podObject)
	})
}

// measureRealSync syncs an informer of newInformer b.N times over s's n
// Pods and reports the figures of BenchmarkRealInitialSync.
func measureRealSync(b *testing.B, s *realServer, n int, newInformer func() realInformer) {
	var syncMS, deliverMS, cpuMS, peak, kept float64
	b.StopTimer()
	for range b.N {
		inf := newInformer()
		h := newRealHandler(n, 0, nil)
		if _, err := inf.add(h); err != nil {
			b.Fatal(err)
		}
		h0 := heapAfterGC()
		hp := startHeapPeak()
		c0, t0 := cpuTime(), time.Now()
		b.StartTimer()
		r := startReal(inf)
		waitFor(b, "informer sync", r.HasSynced)
		synced := time.Since(t0)
		waitClosed(b, "initial adds", h.addsDone)
		b.StopTimer()
		cpuMS += float64((cpuTime() - c0).Microseconds()) / 1e3
		peak += (float64(hp.end()) - float64(h0)) / float64(n)
		syncMS += float64(synced.Microseconds()) / 1e3
		deliverMS += float64(time.Duration(h.lastAdd.Load()-t0.UnixNano()).Microseconds()) / 1e3
		kept += (float64(heapAfterGC()) - float64(h0)) / float64(n)
		writeHeapProfile(b)
		r.stop()
		s.srv.CloseClientConnections()
	}
	k := float64(b.N)
	b.ReportMetric(syncMS/k, "sync-ms")
	b.ReportMetric(deliverMS/k, "deliver-ms")
	b.ReportMetric(cpuMS/k, "cpu-ms")
	b.ReportMetric(peak/k, "peak-B/pod")
	b.ReportMetric(kept/k, "kept-B/pod")
}

// writeHeapProfile writes a heap profile (what is live now, and what was
// allocated so far) to $FANOUT_REAL_HEAPPROFILE/<benchmark name>.pprof
// when that variable names a directory: the profiles behind the figures.
func writeHeapProfile(b *testing.B) {
	dir := os.Getenv("FANOUT_REAL_HEAPPROFILE")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, strings.ReplaceAll(b.Name(), "/", "_")+".pprof"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
