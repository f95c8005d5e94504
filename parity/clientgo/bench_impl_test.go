package parity

import (
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/informer"
)

// The informer benchmarks run the same scenario over client-go's shared
// informer and fanout's, through their public APIs, as sub-benchmarks
// named impl=<name>, so that `benchstat -col /impl` sets them side by side
// (client-go first, so the other columns show their ratio to it):
//
//   - clientgo: client-go v0.37.2 defaults (RealFIFO, batch processing;
//     its InOrderInformers gate is locked on).
//   - fanout: fanout's defaults: RealFIFO with batch processing, as
//     client-go, and the direct engine.
//   - fanout-classic: RealFIFO with the classic engine (client-go's
//     listener shape).
//   - fanout-deltafifo: the DeltaFIFO (InOrder false) with the direct
//     engine.
//   - fanout-seed: informer.SeedPreset, the DeltaFIFO with the classic
//     engine.
//
// FANOUT_BENCH_IMPLS (comma-separated names) restricts the set.

// benchInformer is what the benchmarks use of either informer.
type benchInformer interface {
	RunWithContext(ctx context.Context)
	HasSynced() bool
	addHandler(h *benchHandler) (hasSynced func() bool, err error)
}

// benchImpl names an informer configuration.
type benchImpl struct {
	name string
	make func(lw *benchSource) benchInformer
}

type cgBenchInformer struct{ cache.SharedIndexInformer }

func (i cgBenchInformer) addHandler(h *benchHandler) (func() bool, error) {
	r, err := i.AddEventHandler(h)
	if err != nil {
		return nil, err
	}
	return r.HasSynced, nil
}

type foBenchInformer struct{ informer.SharedIndexInformer }

func (i foBenchInformer) addHandler(h *benchHandler) (func() bool, error) {
	r, err := i.AddEventHandler(h)
	if err != nil {
		return nil, err
	}
	return r.HasSynced, nil
}

func fanoutImpl(name string, options informer.SharedIndexInformerOptions) benchImpl {
	return benchImpl{name, func(lw *benchSource) benchInformer {
		return foBenchInformer{informer.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, options)}
	}}
}

// deltaFIFO is the InOrder option that selects the DeltaFIFO.
var deltaFIFO = new(bool)

var allBenchImpls = []benchImpl{
	{"clientgo", func(lw *benchSource) benchInformer {
		return cgBenchInformer{cache.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{})}
	}},
	fanoutImpl("fanout", informer.SharedIndexInformerOptions{}),
	fanoutImpl("fanout-classic", informer.SharedIndexInformerOptions{ListenerEngine: informer.EngineClassic}),
	fanoutImpl("fanout-deltafifo", informer.SharedIndexInformerOptions{InOrder: deltaFIFO}),
	fanoutImpl("fanout-seed", informer.SeedPreset(informer.SharedIndexInformerOptions{})),
}

// benchImpls returns the implementations FANOUT_BENCH_IMPLS selects (all
// by default), client-go first.
func benchImpls() []benchImpl {
	sel := os.Getenv("FANOUT_BENCH_IMPLS")
	if sel == "" {
		return allBenchImpls
	}
	var out []benchImpl
	for _, im := range allBenchImpls {
		for _, s := range strings.Split(sel, ",") {
			if strings.TrimSpace(s) == im.name {
				out = append(out, im)
			}
		}
	}
	return out
}

// runningInformer is an informer running until stop.
type runningInformer struct {
	benchInformer
	src    *benchSource
	cancel context.CancelFunc
	done   chan struct{}
}

// quietLogs discards klog output until the benchmark ends: the scenarios
// make both libraries log (handlers falling behind, traces), and a log line
// in the middle of a result line would hide it from benchstat.
func quietLogs(b *testing.B) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	b.Cleanup(func() {
		klog.SetOutput(os.Stderr)
		klog.LogToStderr(true)
	})
}

// startInformer runs im's informer over src.
func startInformer(im benchImpl, src *benchSource) *runningInformer {
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningInformer{benchInformer: im.make(src), src: src, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.RunWithContext(ctx)
	}()
	return r
}

// stop stops the informer and waits for Run to return.
func (r *runningInformer) stop() {
	r.cancel()
	<-r.done
}

// waitFor polls cond every 100µs, for at most a minute.
func waitFor(b *testing.B, what string, cond func() bool) {
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// waitClosed waits for ch, for at most ten minutes.
func waitClosed(b *testing.B, what string, ch <-chan struct{}) {
	select {
	case <-ch:
	case <-time.After(10 * time.Minute):
		b.Fatalf("timed out waiting for %s", what)
	}
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapAfterGC returns the live heap after two collections.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// sendCost adds up what sending watch streams through an informer costs:
// wall time, process CPU and allocations.
type sendCost struct {
	wall, cpu      time.Duration
	mallocs, bytes uint64
}

// measure sends events to w, with the benchmark timer running, until wait
// returns, and adds what that cost to c.
func (c *sendCost) measure(b *testing.B, w *benchWatcher, events []watch.Event, wait func()) {
	runtime.GC()
	m0, b0 := allocCounters()
	c0, t0 := cpuTime(), time.Now()
	b.StartTimer()
	go w.send(events, nil)
	wait()
	b.StopTimer()
	c.wall += time.Since(t0)
	c.cpu += cpuTime() - c0
	m1, b1 := allocCounters()
	c.mallocs += m1 - m0
	c.bytes += b1 - b0
}

// report reports events/s, allocs/event and B/event for n events sent, and
// the CPU per unit (cpuUnits of them in all) as the metric cpuMetric.
func (c *sendCost) report(b *testing.B, n, cpuUnits float64, cpuMetric string) {
	b.ReportMetric(n/c.wall.Seconds(), "events/s")
	b.ReportMetric(float64(c.cpu.Nanoseconds())/cpuUnits, cpuMetric)
	b.ReportMetric(float64(c.mallocs)/n, "allocs/event")
	b.ReportMetric(float64(c.bytes)/n, "B/event")
}

// allocCounters returns the number and bytes of allocations so far.
func allocCounters() (mallocs, bytes uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs, ms.TotalAlloc
}
