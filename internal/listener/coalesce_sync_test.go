package listener

import (
	"testing"
	"testing/synctest"
)

// Every merge rule keeps the sync count exact: each initial-list add pushed
// is counted finished exactly once, either by the push that merged it away
// (pushResult.finishedInitial) or when the notification carrying it is
// delivered (popped).
func TestCoalesceQueueSyncCount(t *testing.T) {
	for _, tc := range []struct {
		name           string
		earlier, later Notification
	}{
		{"add+add initial later", NewAdd("a@1", false), NewAdd("a@2", true)},
		{"add+add initial earlier", NewAdd("a@1", true), NewAdd("a@2", false)},
		{"add+add both initial", NewAdd("a@1", true), NewAdd("a@2", true)},
		{"add+add neither initial", NewAdd("a@1", false), NewAdd("a@2", false)},
		{"initial add+update", NewAdd("a@1", true), NewUpdate("a@1", "a@2")},
		{"add+update", NewAdd("a@1", false), NewUpdate("a@1", "a@2")},
		{"initial add+delete", NewAdd("a@1", true), NewDelete("a@2")},
		{"add+delete", NewAdd("a@1", false), NewDelete("a@2")},
		{"update+update", NewUpdate("a@1", "a@2"), NewUpdate("a@2", "a@3")},
		{"update+delete", NewUpdate("a@1", "a@2"), NewDelete("a@3")},
		{"delete+delete", NewDelete("a@1"), NewDelete("a@2")},
		{"delete+initial add", NewDelete("a@1"), NewAdd("a@2", true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newCoalesceQueue(0, 0, strKey)
			pushed := initialAdds(tc.earlier) + initialAdds(tc.later)
			finished := q.push(tc.earlier, 0).finishedInitial + q.push(tc.later, 0).finishedInitial
			for n, ok := q.pop(); ok; n, ok = q.pop() {
				finished += initialAdds(n)
			}
			if finished != pushed {
				t.Fatalf("initial-list adds pushed %d, counted finished %d", pushed, finished)
			}
		})
	}
}

// Under OverflowCoalesce, an add merged with a later initial-list add of the
// same key keeps the registration unsynced until the merged add has been
// handled, and counts it finished once (the tracker panics on a second).
func TestCoalesceAddThenInitialAddSyncsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		g := newGate("add z false")
		h := &recorder{before: g.wait}
		l := mustListener(t, p, h, up, Options{Overflow: OverflowCoalesce, MaxPending: 1, KeyFunc: strKey})
		stop := runProcessor(p)
		defer stop()
		released := false
		defer func() {
			if !released {
				g.release("add z false")
			}
		}()
		p.StartWatchSynced(l)
		p.Distribute(NewAdd("z", false), false)
		synctest.Wait() // the handler holds z
		p.Distribute(NewAdd("x@1", false), false)
		p.Distribute(NewAdd("x@2", true), false)
		up.sync()
		synctest.Wait()
		if l.HasSynced() {
			t.Fatal("HasSynced before the merged initial-list add was handled")
		}
		g.release("add z false")
		released = true
		synctest.Wait()
		wantCalls(t, "handler", h.got(), []string{"add z false", "add x@2 true"})
		if !l.HasSynced() {
			t.Fatal("HasSynced false after every initial-list add was handled")
		}
		if s := l.Stats(); s.Coalesced != 1 || s.Pending != 0 {
			t.Fatalf("stats %+v, want Coalesced 1 and Pending 0", s)
		}
	})
}
