package listener

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// processCPU returns the process's user+system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// paddedCounter is a countHandler on cache lines of its own, so that
// handlers allocated side by side do not slow each other down.
type paddedCounter struct {
	_ [64]byte
	countHandler
	_ [64]byte
}

// BenchmarkProcessorFanOut distributes b.N updates to 1, 10 and 100
// handlers on each engine variant and waits until every handler has had
// them all: the listener layer alone, without an informer upstream. It
// compares fanout's engines with each other (parity/clientgo's FanOut
// compares whole informers with client-go). cpu-ns/delivery is process CPU
// (all goroutines, GC included) per handler call; ns/op is wall time per
// distributed update.
func BenchmarkProcessorFanOut(b *testing.B) {
	objs := make([]any, 4096)
	for i := range objs {
		objs[i] = new([4]int)
	}
	for _, handlers := range []int{1, 10, 100} {
		for _, v := range engines {
			b.Run(fmt.Sprintf("handlers=%d/%s", handlers, v.name), func(b *testing.B) {
				p := NewProcessor(ProcessorOptions{})
				up := newUpstream("inf")
				hs := make([]*paddedCounter, handlers)
				for i := range hs {
					hs[i] = &paddedCounter{countHandler: countHandler{want: int64(b.N), done: make(chan struct{})}}
					if _, err := p.AddListener(mustNew(b, p, hs[i], Binding{UpstreamHasSynced: up}, Options{Engine: v.eng, BacklogWarnThresholds: []int{-1}})); err != nil {
						b.Fatal(err)
					}
				}
				ctx, cancel := context.WithCancel(context.Background())
				ran := make(chan struct{})
				go func() { p.Run(ctx); close(ran) }()
				c0 := processCPU(b)
				b.ResetTimer()
				for i := range b.N {
					p.Distribute(NewUpdate(objs[i%len(objs)], objs[(i+1)%len(objs)]), false)
				}
				for _, h := range hs {
					<-h.done
				}
				b.StopTimer()
				b.ReportMetric(float64(processCPU(b)-c0)/float64(b.N*handlers), "cpu-ns/delivery")
				cancel()
				<-ran
			})
		}
	}
}
