package parity

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkRealChurn syncs a Pod informer (protobuf, each library's default) over N
// cached Pods (FANOUT_REAL_PODS, default 100k) with 1, 10 or 100 handlers,
// then sends FANOUT_REAL_CHURN (default 10000) status updates of random
// Pods at FANOUT_REAL_RATE per second (default 2000), each a full encoded
// Pod, as a kubelet's status updates reach an informer. Metrics:
//
//   - cpu-ns/event: process CPU (decoding, reflector, queue, store and
//     fan-out; the server's writes too) from the first send until every
//     handler had the last update, per event.
//   - cpu-ns/delivery: the same per handler call.
//   - allocs/event, B/event: heap allocations per event (all handlers).
//   - lag-p50-ms, lag-p99-ms: from the server's send to each handler's
//     OnUpdate, over all handlers.
func BenchmarkRealChurn(b *testing.B) {
	quietLogs(b)
	events := envInt("FANOUT_REAL_CHURN", 10_000)
	rate := envInt("FANOUT_REAL_RATE", 2000)
	for _, n := range realPodCounts(b, 100_000) {
		s := newPodServer(b, realPods(1, n))
		evs := churnEvents(s, n, events)
		for _, handlers := range []int{1, 10, 100} {
			for _, im := range realImpls("clientgo", "fanout") {
				b.Run(fmt.Sprintf("pods=%s/handlers=%d/impl=%s", kName(n), handlers, im.name), func(b *testing.B) {
					benchRealChurn(b, s, im, n, handlers, evs, rate)
				})
			}
		}
	}
}

// churnEvents pre-encodes count status updates of random Pods among n:
// the event k sets Generation churnGen+k (so that handlers can tell
// which event they got) and a new Ready condition time.
func churnEvents(s *realServer, n, count int) []*realEvent {
	g := newPodGen(1, max(1, n/50))
	rnd := rand.New(rand.NewPCG(7, 7))
	out := make([]*realEvent, count)
	for k := range out {
		i := rnd.IntN(n)
		rv := s.nextRV()
		p := g.pod(i, strconv.FormatInt(rv, 10))
		p.Generation = int64(churnGen + k)
		p.Status.Conditions[2].LastTransitionTime = metav1.NewTime(realEpoch.Add(time.Duration(k) * time.Millisecond))
		p.Status.ContainerStatuses[0].RestartCount = int32(k % 7)
		out[k] = s.event(p, i, rv)
	}
	return out
}

func benchRealChurn(b *testing.B, s *realServer, im realImpl, n, handlers int, evs []*realEvent, rate int) {
	im.setup(b)
	var cpu time.Duration
	var mallocs, bytes uint64
	var p50, p99 float64
	b.StopTimer()
	for range b.N {
		cs := im.clientset(b, s, "proto")
		inf := im.make(podListWatch(cs, "default"), podObject)
		sent := make([]atomic.Int64, len(evs))
		hs := make([]*realHandler, handlers)
		for i := range hs {
			hs[i] = newRealHandler(n, len(evs), sent)
			if _, err := inf.add(hs[i]); err != nil {
				b.Fatal(err)
			}
		}
		_, opened := s.openWatches(podsGV, "pods")
		r := startReal(inf)
		waitFor(b, "informer sync", r.HasSynced)
		for _, h := range hs {
			waitClosed(b, "initial adds", h.addsDone)
		}
		waitFor(b, "the watch", func() bool { open, o := s.openWatches(podsGV, "pods"); return open == 1 && o > opened })

		runtime.GC()
		m0, b0 := allocCounters()
		c0 := cpuTime()
		b.StartTimer()
		sendPaced(rate, sent, func(k int) { s.send(podsGV, "pods", evs[k]) })
		for _, h := range hs {
			waitClosed(b, "updates", h.updatesDone)
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		m1, b1 := allocCounters()
		mallocs += m1 - m0
		bytes += b1 - b0
		a, c := lagPercentiles(hs)
		p50 += a
		p99 += c
		r.stop()
		s.srv.CloseClientConnections()
	}
	k := float64(b.N)
	e := k * float64(len(evs))
	b.ReportMetric(float64(cpu.Nanoseconds())/e, "cpu-ns/event")
	b.ReportMetric(float64(cpu.Nanoseconds())/e/float64(handlers), "cpu-ns/delivery")
	b.ReportMetric(float64(mallocs)/e, "allocs/event")
	b.ReportMetric(float64(bytes)/e, "B/event")
	b.ReportMetric(p50/k, "lag-p50-ms")
	b.ReportMetric(p99/k, "lag-p99-ms")
}

// sendPaced calls send(k) for k below len(sent) at rate per second (in
// bursts of what is due, checked every 200µs), recording each send time.
func sendPaced(rate int, sent []atomic.Int64, send func(k int)) {
	t0 := time.Now()
	for k := range sent {
		due := t0.Add(time.Duration(k) * time.Second / time.Duration(rate))
		for time.Now().Before(due) {
			time.Sleep(200 * time.Microsecond)
		}
		sent[k].Store(time.Now().UnixNano())
		send(k)
	}
}
