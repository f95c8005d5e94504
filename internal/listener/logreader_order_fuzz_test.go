package listener

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// FuzzLogReaderPrivateOrder checks a log reader's merge of its private
// queue with the shared log against a plain reference, under writer
// interleavings the fuzzer picks: every time the reader is about to load
// the log's published count, the next few notifications are distributed
// (sync ones go to the resyncing listener's private queue only, the
// others through the log). The resyncing listener must get every
// notification in distribution order, the other one the non-sync ones.
func FuzzLogReaderPrivateOrder(f *testing.F) {
	// A sync then a change, distributed right after the reader took the
	// first notification and found nothing private.
	f.Add([]byte{0, 1, 0}, []byte{0, 2})
	f.Add([]byte{0, 1, 0, 1, 1, 0}, []byte{2, 0, 1, 3})
	f.Add([]byte{1, 1, 1, 0, 0, 1, 0, 1}, []byte{1, 1, 1, 1})
	f.Add([]byte{0, 0, 0, 0}, []byte{0})
	f.Fuzz(func(t *testing.T, kinds, bursts []byte) {
		if len(kinds) == 0 || len(kinds) > 64 {
			return
		}
		synctest.Test(t, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			p := NewProcessor(ProcessorOptions{Clock: clk})
			up := newUpstream("inf")
			r10, r30 := &recorder{}, &recorder{}
			l10 := mustBound(t, p, r10, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 10 * time.Second, ResyncPeriod: 10 * time.Second}, Options{Engine: EngineDirect})
			l30 := mustBound(t, p, r30, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 30 * time.Second, ResyncPeriod: 30 * time.Second}, Options{Engine: EngineDirect})
			wantEngineForm(t, EngineDirect, l10, l30)

			// The test goroutine and the hook (on the reader's goroutine)
			// both distribute; mu keeps them one writer at a time, as the
			// informer's delta lock does.
			var mu sync.Mutex
			var want10, want30 []string
			next := 0 // the next notification to distribute
			distribute := func() {
				mu.Lock()
				defer mu.Unlock()
				if next == len(kinds) {
					return
				}
				v := strconv.Itoa(next)
				sync := kinds[next]&1 == 1
				next++
				p.Distribute(NewUpdate(v, v), sync)
				want10 = append(want10, "update "+v+" "+v)
				if !sync {
					want30 = append(want30, "update "+v+" "+v)
				}
			}
			var hookOn atomic.Bool
			loads := 0
			l10.engine.(*logReader).beforeLoad = func() {
				if !hookOn.Load() {
					return
				}
				n := 0
				if len(bursts) > 0 {
					n = int(bursts[loads%len(bursts)] % 4)
				}
				loads++
				for ; n > 0; n-- {
					distribute()
				}
			}
			stop := runProcessor(p)
			defer stop()
			clk.Step(10 * time.Second)
			if !p.ShouldResync() {
				t.Fatal("ShouldResync() at 10s = false")
			}
			hookOn.Store(true)
			distribute()
			synctest.Wait() // the reader sleeps: nothing runs the hook
			hookOn.Store(false)
			for range kinds {
				distribute()
			}
			synctest.Wait()
			wantCalls(t, "resyncing listener", r10.got(), want10)
			wantCalls(t, "other listener", r30.got(), want30)
		})
	})
}
