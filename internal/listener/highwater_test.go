package listener

import (
	"testing"
	"testing/synctest"
)

// Stats().HighWater never decreases: a Pending that Stats reported stays
// the high water after the handler has drained the backlog, on every engine.
func TestHighWaterIsMonotonic(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		g := newGate("add 0 false")
		h := &recorder{before: g.wait}
		l := mustListener(t, p, h, newUpstream("inf"), Options{Engine: eng, BacklogWarnThresholds: []int{-1}})
		stop := runProcessor(p)
		defer stop()
		// Two before the run goroutine first looks at the log, so that it
		// holds one it has not taken while the handler is stuck in 0.
		p.Distribute(NewAdd(0, false), false)
		p.Distribute(NewAdd(1, false), false)
		synctest.Wait()
		for i := 2; i < 10; i++ {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		before := l.Stats()
		g.release("add 0 false")
		synctest.Wait()
		after := l.Stats()
		if len(h.got()) != 10 || after.Pending != 0 {
			t.Fatalf("handled %d, pending %d; want 10 and 0", len(h.got()), after.Pending)
		}
		if after.HighWater < before.HighWater || before.HighWater < before.Pending {
			t.Fatalf("HighWater went from %d (pending %d) to %d: it must not decrease", before.HighWater, before.Pending, after.HighWater)
		}
	})
}
