package demo

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"time"
)

// heapMetric is the heap memory occupied by objects, live or not yet
// swept: close to MemStats.HeapAlloc, without stopping the world.
const heapMetric = "/memory/classes/heap/objects:bytes"

// progressEvery is the interval between progress lines.
const progressEvery = time.Second

// monitor samples heap and backlogs for the chart and prints progress.
// It is used by one goroutine.
type monitor struct {
	cfg      Config
	regs     [NumHandlers]Statser
	produced func() uint64
	start    time.Time

	heap         []metrics.Sample
	samples      []Sample
	peakHeap     uint64
	nextProgress time.Duration // since start
	printed      bool          // a progress line is open (LiveLine mode)
}

func newMonitor(cfg Config, regs [NumHandlers]Statser, produced func() uint64) *monitor {
	return &monitor{
		cfg:      cfg,
		regs:     regs,
		produced: produced,
		start:    time.Now(),
		heap:     []metrics.Sample{{Name: heapMetric}},
	}
}

func (m *monitor) elapsed() time.Duration { return time.Since(m.start) }

// heapBytes reads the current heap size.
func (m *monitor) heapBytes() uint64 {
	metrics.Read(m.heap)
	if m.heap[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m.heap[0].Value.Uint64()
}

// watch samples every cfg.Sample until ctx is done or done (if not nil)
// reports true.
func (m *monitor) watch(ctx context.Context, done func() bool) {
	t := time.NewTicker(m.cfg.Sample)
	defer t.Stop()
	for {
		m.sample()
		if done != nil && done() {
			return
		}
		select {
		case <-ctx.Done():
			m.sample()
			return
		case <-t.C:
		}
	}
}

func (m *monitor) sample() {
	s := Sample{At: m.elapsed()}
	h := m.heapBytes()
	m.peakHeap = max(m.peakHeap, h)
	s.HeapMiB = mib(h)
	for i, r := range m.regs {
		s.Backlog[i] = r.Stats().Pending
	}
	m.samples = append(m.samples, s)
	if m.cfg.Progress != nil && s.At >= m.nextProgress {
		m.nextProgress = s.At.Truncate(progressEvery) + progressEvery
		m.progress(s)
	}
}

func (m *monitor) progress(s Sample) {
	line := fmt.Sprintf("%5.1fs  events %9d  backlog fast %7d  slow %7d  stalled %7d  heap %7.1f MiB",
		s.At.Seconds(), m.produced(), s.Backlog[Fast], s.Backlog[Slow], s.Backlog[Stalled], s.HeapMiB)
	if m.cfg.LiveLine {
		fmt.Fprintf(m.cfg.Progress, "\r%s", line)
		m.printed = true
		return
	}
	fmt.Fprintln(m.cfg.Progress, line)
}

// endLine ends an open in-place progress line.
func (m *monitor) endLine() {
	if m.printed {
		fmt.Fprintln(m.cfg.Progress)
		m.printed = false
	}
}

// liveHeapAfterGC collects garbage and returns the heap that survived.
func liveHeapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
