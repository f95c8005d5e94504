package listener

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
)

// TestReplayNeverWaits checks that a replay to a listener whose handler is
// stalled is queued in full whatever MaxPending is, under every policy and
// engine: Replay returns, the replay is pending, HasSynced follows its
// delivery, and later notifications follow it in order. Under
// OverflowBlock with one goroutine a notification distributed after the
// replay still waits for room. Before Replay existed the informer used Add,
// which under OverflowBlock waited for the stalled handler.
func TestReplayNeverWaits(t *testing.T) {
	key := func(obj any) (string, error) { return fmt.Sprint(obj), nil }
	cases := []struct {
		name string
		opts Options
		// blocks: a later Distribute waits for room while the replay is
		// pending; queued: Stats.Pending counts exactly the queue;
		// highWater: Stats.HighWater once all is delivered (with queued).
		blocks, queued bool
		highWater      int64
	}{
		{"block", Options{Overflow: OverflowBlock, MaxPending: 1}, true, true, 4},
		{"block-workers", Options{Overflow: OverflowBlock, MaxPending: 1, Workers: 2, KeyFunc: key}, false, false, 0},
		// The update is queued behind the replay (x0 is not pending, so
		// nothing merges).
		{"coalesce", Options{Overflow: OverflowCoalesce, MaxPending: 1, KeyFunc: key}, false, true, 5},
		{"grow", Options{}, false, false, 0},
	}
	replay := []string{"x0", "x1", "x2", "x3", "x4"}
	for _, c := range cases {
		for _, v := range engines {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					p := NewProcessor(ProcessorOptions{})
					up := newUpstream("inf")
					stop := runProcessor(p)
					defer stop()
					up.sync()

					g := newGate("add x0 true")
					r := &recorder{before: g.wait}
					opts := c.opts
					opts.Engine = v.eng
					released := false
					release := func() {
						if !released {
							released = true
							g.release("add x0 true")
						}
					}
					defer release() // lets the bubble end if the test fails
					l := mustListener(t, p, r, up, opts)
					// The handler takes x0 and stalls; the rest of the
					// replay is queued behind it.
					l.replay(NewAdd(replay[0], true))
					synctest.Wait()
					done := make(chan struct{})
					go func() {
						defer close(done)
						for _, obj := range replay[1:] {
							l.replay(NewAdd(obj, true))
						}
					}()
					synctest.Wait()
					if !isClosed(done) {
						t.Fatal("Replay waited for the stalled handler")
					}
					p.StartWatchSynced(l)
					synctest.Wait()
					if l.HasSynced() {
						t.Fatal("synced while the replay is pending")
					}
					if s := l.Stats(); c.queued && (s.Pending != 4 || s.HighWater != 4) {
						t.Fatalf("Pending, HighWater = %d, %d; want 4, 4", s.Pending, s.HighWater)
					}

					distributed := make(chan struct{})
					go func() {
						defer close(distributed)
						p.Distribute(NewUpdate("x0", "x0"), false)
					}()
					synctest.Wait()
					if c.blocks && isClosed(distributed) {
						t.Fatal("Distribute after the replay did not wait for room")
					}
					release()
					<-distributed
					synctest.Wait()
					if !l.HasSynced() {
						t.Fatal("not synced after the replay was delivered")
					}
					want := []string{"add x0 true", "add x1 true", "add x2 true", "add x3 true", "add x4 true", "update x0 x0"}
					got := r.got()
					if opts.Workers > 1 {
						// Workers keep one key's order only.
						if i, j := slices.Index(got, "add x0 true"), slices.Index(got, "update x0 x0"); i < 0 || j < i {
							t.Fatalf("x0's calls out of order: %q", got)
						}
						slices.Sort(got)
						slices.Sort(want)
					}
					wantCalls(t, "listener", got, want)
					if s := l.Stats(); s.Pending != 0 || (c.queued && s.HighWater != c.highWater) {
						t.Fatalf("after delivery Pending, HighWater = %d, %d; want 0, %d", s.Pending, s.HighWater, c.highWater)
					}
				})
			})
		}
	}
}
