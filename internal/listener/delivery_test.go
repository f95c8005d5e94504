package listener

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// Every handler sees every notification exactly once, in distribution order,
// whatever its speed.
func TestOrderPerHandler(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		fast := &recorder{}
		// slow blocks in its first call while everything is distributed.
		g := newGate("add o0 false")
		slow := &recorder{before: g.wait}
		lf := mustListener(t, p, fast, up, Options{Engine: eng})
		ls := mustListener(t, p, slow, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()

		var want []string
		for i := range 300 {
			obj := "o" + strconv.Itoa(i%7)
			var n Notification
			switch i % 3 {
			case 0:
				n = NewAdd(obj, false)
				want = append(want, fmt.Sprintf("add %s false", obj))
			case 1:
				n = NewUpdate(obj, obj+"'")
				want = append(want, fmt.Sprintf("update %s %s'", obj, obj))
			case 2:
				n = NewDelete(obj)
				want = append(want, "delete "+obj)
			}
			p.Distribute(n, false)
			if i == 0 {
				synctest.Wait() // both handlers have taken #0 into their call
			}
		}
		synctest.Wait()
		wantCalls(t, "fast", fast.got(), want)
		if got := len(slow.got()); got != 0 {
			t.Fatalf("slow handler finished %d calls while blocked", got)
		}
		g.release("add o0 false")
		synctest.Wait()
		wantCalls(t, "slow", slow.got(), want)
		if s := lf.Stats(); s.Delivered != 300 || s.Pending != 0 {
			t.Fatalf("fast stats = %+v, want Delivered 300, Pending 0", s)
		}
		// slow took #0 into its handler and the rest were pending; classic's
		// pump held #1 in hand (pending, but not spilled into the ring).
		spilled := byEngine[uint64](eng, 298, 299)
		if s := ls.Stats(); s.Delivered != 300 || s.Spilled != spilled || s.HighWater != 299 || s.Pending != 0 {
			t.Fatalf("slow stats = %+v, want Delivered 300, Spilled %d, HighWater 299, Pending 0", s, spilled)
		}
	})
}

// With several goroutines distributing at once, each handler still gets
// every notification once, and each distributor's notifications in that
// distributor's order.
func TestOrderUnderConcurrentDistribution(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		recs := []*recorder{{}, {}, {}}
		for _, r := range recs {
			mustListener(t, p, r, up, Options{Engine: eng})
		}
		stop := runProcessor(p)
		defer stop()
		const senders, perSender = 4, 250
		var wg sync.WaitGroup
		for s := range senders {
			wg.Go(func() {
				for i := range perSender {
					p.Distribute(NewAdd(fmt.Sprintf("%d/%d", s, i), false), false)
				}
			})
		}
		wg.Wait()
		synctest.Wait()
		for h, r := range recs {
			next := make([]int, senders)
			for _, c := range r.got() {
				var s, i int
				if _, err := fmt.Sscanf(strings.TrimSuffix(c, " false"), "add %d/%d", &s, &i); err != nil {
					t.Fatalf("handler %d: bad call %q", h, c)
				}
				if i != next[s] {
					t.Fatalf("handler %d: sender %d item %d arrived, want %d", h, s, i, next[s])
				}
				next[s]++
			}
			for s, n := range next {
				if n != perSender {
					t.Fatalf("handler %d: got %d items from sender %d, want %d", h, n, s, perSender)
				}
			}
		}
	})
}

// The classic engine's ring is used only when the handler falls behind: while each
// notification is taken before the next arrives, nothing is written to it.
func TestLookahead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		g := newGate("add b false")
		r := &recorder{before: g.wait}
		l := mustListener(t, p, r, newUpstream("inf"), Options{Engine: EngineClassic})
		stop := runProcessor(p)
		defer stop()

		p.Distribute(NewAdd("a", false), false)
		synctest.Wait()
		if s := l.Stats(); s.Spilled != 0 || s.Pending != 0 {
			t.Fatalf("after a handled: %+v, want nothing spilled", s)
		}
		p.Distribute(NewAdd("b", false), false) // the handler blocks on b
		synctest.Wait()
		p.Distribute(NewAdd("c", false), false) // held in hand by pop
		synctest.Wait()
		if s := l.Stats(); s.Spilled != 0 || s.Pending != 1 {
			t.Fatalf("one in handler, one in hand: %+v, want nothing spilled, Pending 1", s)
		}
		for _, o := range []string{"d", "e", "f"} {
			p.Distribute(NewAdd(o, false), false)
		}
		synctest.Wait()
		if s := l.Stats(); s.Spilled != 3 || s.Pending != 4 || s.HighWater != 4 {
			t.Fatalf("four behind: %+v, want Spilled 3, Pending 4, HighWater 4", s)
		}
		g.release("add b false")
		synctest.Wait()
		wantCalls(t, "handler", r.got(), []string{"add a false", "add b false", "add c false", "add d false", "add e false", "add f false"})
		if s := l.Stats(); s.Spilled != 3 || s.Pending != 0 || s.HighWater != 4 || s.Delivered != 6 {
			t.Fatalf("drained: %+v, want Spilled 3, Pending 0, HighWater 4, Delivered 6", s)
		}
		// Keeping up again: no more ring writes.
		for _, o := range []string{"g", "h"} {
			p.Distribute(NewAdd(o, false), false)
			synctest.Wait()
		}
		if s := l.Stats(); s.Spilled != 3 {
			t.Fatalf("after catching up: Spilled %d, want 3", s.Spilled)
		}
	})
}

// A handler that never returns does not hold up distribution to the others.
func TestStalledHandlerDoesNotDelayOthers(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		g := newGate("add 0 false")
		stalled := &recorder{before: g.wait}
		other := &recorder{}
		ls := mustListener(t, p, stalled, up, Options{Engine: eng})
		mustListener(t, p, other, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()

		const n = 3000 // more than the initial ring size
		for i := range n {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		if got := len(other.got()); got != n {
			t.Fatalf("other handler got %d calls, want %d", got, n)
		}
		// One in the handler; the rest are pending (for classic, one of
		// them in the pump's hand).
		if s := ls.Stats(); s.Pending != n-1 || s.Delivered != 1 {
			t.Fatalf("stalled stats = %+v, want Pending %d, Delivered 1", s, n-1)
		}
		g.release("add 0 false")
		synctest.Wait()
		if got := len(stalled.got()); got != n {
			t.Fatalf("stalled handler got %d calls after release, want %d", got, n)
		}
	})
}
