package parity

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// BenchmarkRealRelist syncs a Pod informer (protobuf; JSON when
// FANOUT_REAL_RELIST_CODEC=json, the names then holding codec=json) over N cached Pods
// (FANOUT_REAL_PODS, default 100k) with one handler, then ends its watch
// with a 410 Expired ERROR event: the reflector lists again (mode=list:
// one unpaged list at its last resource version, served as from the
// watch cache) or does what its default does (mode=default: client-go
// and fanout stream by watch-list; fanout-listwatch and fanout-deltafifo list) while the old cache is
// still held, and the informer replaces its contents (an update per Pod).
// Metrics:
//
//   - relist-ms: from the reflector's new list or watch-list request
//     (after its backoff) to the handler's last update.
//   - wait-ms: from the 410 to that request: the reflector's backoff
//     (jittered, the same policy in both libraries).
//   - cpu-ms: process CPU from the 410 to the last update.
//   - peak-B/pod: the highest heap (sampled every ms) during the relist,
//     above the live heap with the Pods cached, per Pod.
func BenchmarkRealRelist(b *testing.B) {
	quietLogs(b)
	codec, codecName := "proto", ""
	if os.Getenv("FANOUT_REAL_RELIST_CODEC") == "json" {
		codec, codecName = "json", "/codec=json"
	}
	for _, n := range realPodCounts(b, 100_000) {
		s := newPodServer(b, realPods(1, n))
		for _, mode := range []string{"list", "default"} {
			for _, im := range realImpls("clientgo", "fanout", "fanout-listwatch", "fanout-deltafifo") {
				b.Run(fmt.Sprintf("pods=%s%s/mode=%s/impl=%s", kName(n), codecName, mode, im.name), func(b *testing.B) {
					benchRealRelist(b, s, im, codec, n, mode)
				})
			}
		}
	}
}

func benchRealRelist(b *testing.B, s *realServer, im realImpl, codec string, n int, mode string) {
	im.setup(b)
	var relistMS, waitMS, cpuMS, peak float64
	b.StopTimer()
	for range b.N {
		cs := im.clientset(b, s, codec)
		inf := im.make(podListWatch(cs, mode), podObject)
		h := newRealHandler(n, n, nil)
		if _, err := inf.add(h); err != nil {
			b.Fatal(err)
		}
		_, opened := s.openWatches(podsGV, "pods")
		r := startReal(inf)
		waitFor(b, "informer sync", r.HasSynced)
		waitClosed(b, "initial adds", h.addsDone)
		waitFor(b, "the watch", func() bool { open, o := s.openWatches(podsGV, "pods"); return open == 1 && o > opened })

		h0 := heapAfterGC()
		hp := startHeapPeak()
		c0, t0 := cpuTime(), time.Now()
		b.StartTimer()
		s.expire(podsGV, "pods")
		waitClosed(b, "relist updates", h.updatesDone)
		b.StopTimer()
		done := time.Now()
		req := s.firstRequestAfter(podsGV, "pods", t0)
		relistMS += float64(done.Sub(req).Microseconds()) / 1e3
		waitMS += float64(req.Sub(t0).Microseconds()) / 1e3
		cpuMS += float64((cpuTime() - c0).Microseconds()) / 1e3
		peak += (float64(hp.end()) - float64(h0)) / float64(n)
		writeHeapProfile(b)
		r.stop()
		s.srv.CloseClientConnections()
	}
	k := float64(b.N)
	b.ReportMetric(relistMS/k, "relist-ms")
	b.ReportMetric(waitMS/k, "wait-ms")
	b.ReportMetric(cpuMS/k, "cpu-ms")
	b.ReportMetric(peak/k, "peak-B/pod")
}
