package listener

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/internal/testutil"
)

// readsSharedLog reports whether l's engine is a reader of the processor's
// shared log.
func readsSharedLog(l *Listener) bool {
	return l.engine.readsLog()
}

// wantEngineForm fails unless l reads the shared log exactly when the
// current engine variant is the direct engine on the log, so that a test
// meant for the log does run on it.
func wantEngineForm(t *testing.T, eng Engine, ls ...*Listener) {
	t.Helper()
	want := eng == EngineDirect
	for i, l := range ls {
		if got := readsSharedLog(l); got != want {
			t.Fatalf("listener %d reads the shared log = %v, want %v", i, got, want)
		}
	}
}

// addCalls returns the recorder strings of NewAdd(i, false) for i in
// [from, to).
func addCalls(from, to int) []string {
	var s []string
	for i := from; i < to; i++ {
		s = append(s, "add "+strconv.Itoa(i)+" false")
	}
	return s
}

// Three handlers get every notification once, in order, across several
// segment boundaries, including one that is stalled in its first call while
// the first half is distributed.
func TestSharedLogOrderAcrossSegments(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		g := newGate("add 0 false")
		recs := []*recorder{{}, {before: g.wait}, {}}
		var ls []*Listener
		for _, r := range recs {
			ls = append(ls, mustListener(t, p, r, up, Options{Engine: eng}))
		}
		wantEngineForm(t, eng, ls...)
		stop := runProcessor(p)
		defer stop()

		const total = 3*logSegmentSize + 7
		const half = total / 2
		for i := range half {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		wantCalls(t, "first", recs[0].got(), addCalls(0, half))
		wantCalls(t, "stalled", recs[1].got(), nil)
		if s := ls[1].Stats(); s.Pending != half-1 || s.Delivered != 1 {
			t.Fatalf("stalled stats = %+v, want Pending %d, Delivered 1", s, half-1)
		}
		g.release("add 0 false")
		for i := half; i < total; i++ {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		for i, r := range recs {
			wantCalls(t, fmt.Sprintf("handler %d", i), r.got(), addCalls(0, total))
			if s := ls[i].Stats(); s.Pending != 0 || s.Delivered != total || s.OldestPendingAge != 0 {
				t.Fatalf("handler %d stats = %+v, want Pending 0, Delivered %d", i, s, total)
			}
		}
	})
}

// A sync notification that only some log readers take goes to their
// private queues and is delivered exactly between the log entries it was
// distributed between; once every reader is marked, sync notifications go
// through the log to all of them.
func TestSharedLogPartialResyncOrder(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clk := clocktesting.NewFakeClock(start)
		p := NewProcessor(ProcessorOptions{Clock: clk})
		up := newUpstream("inf")
		g := newGate("update u1 u1")
		r10 := &recorder{before: g.wait}
		r30 := &recorder{}
		l10 := mustBound(t, p, r10, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 10 * time.Second, ResyncPeriod: 10 * time.Second}, Options{Engine: eng})
		l30 := mustBound(t, p, r30, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 30 * time.Second, ResyncPeriod: 30 * time.Second}, Options{Engine: eng})
		wantEngineForm(t, eng, l10, l30)
		stop := runProcessor(p)
		defer stop()

		d := func(v string, sync bool) { p.Distribute(NewUpdate(v, v), sync) }
		d("u1", false) // r10 stalls on it: everything after is pending
		synctest.Wait()
		if p.ShouldResync() {
			t.Fatal("ShouldResync() at 0s = true")
		}
		d("s0", true) // nobody is marked
		clk.Step(10 * time.Second)
		if !p.ShouldResync() {
			t.Fatal("ShouldResync() at 10s = false")
		}
		d("u2", false)
		d("s1", true) // r10 only
		d("u3", false)
		d("s2", true)
		d("s3", true)
		d("u4", false)
		synctest.Wait()
		if s := l10.Stats(); s.Pending != 6 || s.HighWater != 6 {
			t.Fatalf("stalled r10 stats = %+v, want Pending 6, HighWater 6", s)
		}
		wantCalls(t, "30s before release", r30.got(), []string{"update u1 u1", "update u2 u2", "update u3 u3", "update u4 u4"})
		g.release("update u1 u1")
		synctest.Wait()

		clk.Step(20 * time.Second) // t=30s: both due
		if !p.ShouldResync() {
			t.Fatal("ShouldResync() at 30s = false")
		}
		// From here on each notification is handled before the next one:
		// none spills.
		d("s4", true) // both marked: through the log
		synctest.Wait()
		d("u5", false)
		synctest.Wait()
		clk.Step(5 * time.Second) // t=35s: nothing due
		if p.ShouldResync() {
			t.Fatal("ShouldResync() at 35s = true")
		}
		d("s5", true) // nobody
		synctest.Wait()
		d("u6", false)
		synctest.Wait()

		var want10, want30 []string
		for _, v := range []string{"u1", "u2", "s1", "u3", "s2", "s3", "u4", "s4", "u5", "u6"} {
			want10 = append(want10, "update "+v+" "+v)
		}
		for _, v := range []string{"u1", "u2", "u3", "u4", "s4", "u5", "u6"} {
			want30 = append(want30, "update "+v+" "+v)
		}
		wantCalls(t, "10s", r10.got(), want10)
		wantCalls(t, "30s", r30.got(), want30)
		if s := l10.Stats(); s.Pending != 0 || s.HighWater != 6 || s.Delivered != uint64(len(want10)) || s.OldestPendingAge != 0 {
			t.Fatalf("r10 stats = %+v, want Pending 0, HighWater 6, Delivered %d", s, len(want10))
		}
		// The six that waited behind u1 spilled (private ones included);
		// classic's pump held one of them in hand.
		if got, want := l10.Stats().Spilled, byEngine[uint64](eng, 5, 6); got != want {
			t.Fatalf("r10 Spilled = %d, want %d", got, want)
		}
		if s := l30.Stats(); s.Pending != 0 || s.Delivered != uint64(len(want30)) {
			t.Fatalf("r30 stats = %+v, want Pending 0, Delivered %d", s, len(want30))
		}
	})
}

// A listener added while the processor runs gets its replay first, then
// only what was distributed after it joined; a replay Add made between two
// Distribute calls lands between their notifications.
func TestSharedLogLateListenerReplay(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		early := &recorder{}
		le := mustListener(t, p, early, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()
		up.sync()
		for _, o := range []string{"e1", "e2"} {
			p.Distribute(NewAdd(o, false), false)
		}
		synctest.Wait()

		g := newGate("add x true")
		late := &recorder{before: g.wait}
		ll, err := p.NewListener(late, Binding{UpstreamHasSynced: up}, Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		if started, err := p.AddListener(ll); err != nil || !started {
			t.Fatalf("AddListener = %v, %v; want true, nil", started, err)
		}
		wantEngineForm(t, eng, le, ll)
		ll.add(NewAdd("x", true))
		ll.add(NewAdd("y", true))
		p.Distribute(NewAdd("e3", false), false)
		ll.add(NewAdd("z", true)) // between e3 and e4
		p.Distribute(NewAdd("e4", false), false)
		p.StartWatchSynced(ll)
		synctest.Wait()
		if s := ll.Stats(); s.Pending != 4 || s.Delivered != 1 {
			t.Fatalf("late stats while stalled = %+v, want Pending 4, Delivered 1", s)
		}
		if ll.HasSynced() {
			t.Fatal("late listener synced while its replay is being handled")
		}
		g.release("add x true")
		synctest.Wait()
		if !ll.HasSynced() {
			t.Fatal("late listener not synced after its replay")
		}
		p.Distribute(NewAdd("e5", false), false)
		synctest.Wait()
		wantCalls(t, "late", late.got(), []string{"add x true", "add y true", "add e3 false", "add z true", "add e4 false", "add e5 false"})
		wantCalls(t, "early", early.got(), []string{"add e1 false", "add e2 false", "add e3 false", "add e4 false", "add e5 false"})
	})
}

// statsSnapshot is what TestSharedLogStatsMatchQueue compares between the
// engine variants.
type statsSnapshot struct {
	stalled, drained Stats
}

// A log reader's Stats match the direct engine's own queue: the one in the
// handler is not pending, each later notification spilled, the oldest
// pending age is the time since the oldest one's distribution rounded down
// to the millisecond, and everything is 0 again once drained.
func TestSharedLogStatsMatchQueue(t *testing.T) {
	const k = logSegmentSize + 10 // the cursor's segment is not the tail
	run := func(t *testing.T, name string) statsSnapshot {
		v := variantNamed(t, name)
		var snap statsSnapshot
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := NewProcessor(ProcessorOptions{})
				g := newGate("add 0 false")
				r := &recorder{before: g.wait}
				l := mustListener(t, p, r, newUpstream("inf"), Options{Engine: v.eng})
				wantEngineForm(t, v.eng, l)
				stop := runProcessor(p)
				defer stop()

				// A notification handled at once: pending for an instant
				// (high water 1), never spilled.
				p.Distribute(NewAdd(-1, false), false)
				synctest.Wait()
				if s := l.Stats(); s != (Stats{HighWater: 1, Delivered: 1}) {
					t.Fatalf("after one handled: %+v, want HighWater 1, Delivered 1", s)
				}
				time.Sleep(time.Second)
				p.Distribute(NewAdd(0, false), false) // the handler stalls on it
				synctest.Wait()
				time.Sleep(3*time.Second + 700*time.Microsecond)
				for i := 1; i < k; i++ {
					p.Distribute(NewAdd(i, false), false) // at 4.0007s
				}
				time.Sleep(2*time.Second + 500*time.Microsecond) // now 6.0012s
				snap.stalled = l.Stats()
				want := Stats{Pending: k - 1, HighWater: k - 1, Spilled: k - 1, Delivered: 2, OldestPendingAge: 2*time.Second + 1200*time.Microsecond}
				if snap.stalled != want {
					t.Fatalf("stalled:\n got  %+v\n want %+v", snap.stalled, want)
				}
				g.release("add 0 false")
				synctest.Wait()
				wantCalls(t, "handler", r.got(), append([]string{"add -1 false"}, addCalls(0, k)...))
				snap.drained = l.Stats()
				want = Stats{HighWater: k - 1, Spilled: k - 1, Delivered: k + 1}
				if snap.drained != want {
					t.Fatalf("drained:\n got  %+v\n want %+v", snap.drained, want)
				}
				// Keeping up again spills nothing more.
				p.Distribute(NewAdd(k, false), false)
				synctest.Wait()
				if s := l.Stats(); s.Spilled != k-1 || s.Pending != 0 || s.Delivered != k+2 {
					t.Fatalf("kept up: %+v, want Spilled %d, Pending 0, Delivered %d", s, k-1, k+2)
				}
			})
		})
		return snap
	}
	logged := run(t, "direct")
	queued := run(t, "direct-queue")
	if logged != queued {
		t.Fatalf("log reader stats differ from the own queue's:\n log   %+v\n queue %+v", logged, queued)
	}
}

// Removing one log reader while others keep reading stops its calls and
// closes its ShutdownChan once its call in progress returns; the others get
// everything in order. Removing the last reader and adding a new one
// restarts the log.
func TestSharedLogRemoveReader(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		g := newGate("add 3 false")
		ra, rb, rc := &recorder{}, &recorder{before: g.wait}, &recorder{}
		la := mustListener(t, p, ra, up, Options{Engine: eng})
		lb := mustListener(t, p, rb, up, Options{Engine: eng})
		lc := mustListener(t, p, rc, up, Options{Engine: eng})
		wantEngineForm(t, eng, la, lb, lc)
		stop := runProcessor(p)
		defer stop()

		for i := range 6 {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait() // b is in its call for 3
		if err := p.RemoveListener(lb); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if isClosed(lb.ShutdownChan()) {
			t.Fatal("removed listener's ShutdownChan closed during its handler call")
		}
		const total = 2*logSegmentSize + 3
		for i := 6; i < total/2; i++ {
			p.Distribute(NewAdd(i, false), false)
		}
		g.release("add 3 false")
		synctest.Wait()
		if !isClosed(lb.ShutdownChan()) {
			t.Fatal("removed listener's ShutdownChan not closed after its call returned")
		}
		for i := total / 2; i < total; i++ {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		wantCalls(t, "removed", rb.got(), addCalls(0, 4))
		wantCalls(t, "a", ra.got(), addCalls(0, total))
		wantCalls(t, "c", rc.got(), addCalls(0, total))
		if s := lb.Stats(); s.Pending != 0 || s.Delivered != 4 || s.OldestPendingAge != 0 {
			t.Fatalf("removed stats = %+v, want Pending 0, Delivered 4", s)
		}

		for _, l := range []*Listener{la, lc} {
			if err := p.RemoveListener(l); err != nil {
				t.Fatal(err)
			}
		}
		p.Distribute(NewAdd("lost", false), false) // nobody listens
		synctest.Wait()
		for _, l := range []*Listener{la, lc} {
			if !isClosed(l.ShutdownChan()) {
				t.Fatal("ShutdownChan of a removed idle listener not closed")
			}
		}
		rd := &recorder{}
		ld := mustListener(t, p, rd, up, Options{Engine: eng})
		wantEngineForm(t, eng, ld)
		for i := range logSegmentSize + 2 {
			p.Distribute(NewAdd(total+i, false), false)
		}
		synctest.Wait()
		wantCalls(t, "new", rd.got(), addCalls(total, total+logSegmentSize+2))
		wantCalls(t, "a after removal", ra.got(), addCalls(0, total))
		if s := ld.Stats(); s.Pending != 0 || s.Delivered != logSegmentSize+2 {
			t.Fatalf("new listener stats = %+v, want Pending 0, Delivered %d", s, logSegmentSize+2)
		}
	})
}

// cleanObj is a heap object whose collection a test counts. It is large
// enough not to be batched by the tiny allocator.
type cleanObj struct {
	id  int
	pad [48]byte
}

// idHandler checks that it is called with cleanObj ids 0, 1, ... in order
// and closes done after the want-th call. Its first call waits for gate,
// if set. It keeps no reference to the objects.
type idHandler struct {
	gate chan struct{}
	want int
	done chan struct{}

	next int // owned by the listener's goroutine; read after done
	bad  string
}

func (h *idHandler) OnAdd(obj any, _ bool) {
	if h.next == 0 && h.gate != nil {
		<-h.gate
	}
	if id := obj.(*cleanObj).id; id != h.next && h.bad == "" {
		h.bad = fmt.Sprintf("got id %d, want %d", id, h.next)
	}
	h.next++
	if h.next == h.want {
		close(h.done)
	}
}
func (h *idHandler) OnUpdate(_, _ any) {}
func (h *idHandler) OnDelete(_ any)    {}

// cleanupCounter counts cleanups and closes reached when the count gets to
// target.
type cleanupCounter struct {
	n       atomic.Int64
	target  int64
	reached chan struct{}
}

func newCleanupCounter(target int) *cleanupCounter {
	return &cleanupCounter{target: int64(target), reached: make(chan struct{})}
}

func (c *cleanupCounter) cleaned(struct{}) {
	if c.n.Add(1) == c.target {
		close(c.reached)
	}
}

// waitFor runs the garbage collector a few times, so that the cleanups of
// what is unreachable get queued, then waits for ch to close; the deadline
// only turns a hang into a failure.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	for range 3 {
		runtime.GC()
	}
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// quiet turns the backlog messages off.
var quiet = []int{-1}

// runReal runs p on the real clock and returns a function that stops it
// and waits for Run to return.
func runReal(p *Processor) (stop func()) {
	return testutil.Start(context.Background(), p.Run)
}

// Log entries every reader has passed are garbage: the log keeps at most
// about a segment's worth of them (the segment at the readers' cursors).
// A reader stalled on the first entry pins everything after it. Cleanups
// run outside any synctest bubble, so this test runs on the real clock.
func TestSharedLogFreesPassedEntries(t *testing.T) {
	const n = 5 * logSegmentSize
	// distribute sends n fresh objects whose collection c counts.
	distribute := func(p *Processor, c *cleanupCounter) {
		for i := range n {
			o := &cleanObj{id: i}
			runtime.AddCleanup(o, c.cleaned, struct{}{})
			p.Distribute(NewAdd(o, false), false)
		}
	}
	// start runs two log readers, the second held by gate if not nil, and
	// distributes n fresh objects whose collection the returned counter
	// counts.
	start := func(t *testing.T, gate chan struct{}) (h1, h2 *idHandler, l2 *Listener, c *cleanupCounter) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		h1 = &idHandler{want: n, done: make(chan struct{})}
		h2 = &idHandler{gate: gate, want: n, done: make(chan struct{})}
		l1 := mustListener(t, p, h1, up, Options{Engine: EngineDirect, BacklogWarnThresholds: quiet})
		l2 = mustListener(t, p, h2, up, Options{Engine: EngineDirect, BacklogWarnThresholds: quiet})
		wantEngineForm(t, EngineDirect, l1, l2)
		t.Cleanup(runReal(p))
		c = newCleanupCounter(n - 2*logSegmentSize)
		distribute(p, c)
		return h1, h2, l2, c
	}

	t.Run("consumed", func(t *testing.T) {
		h1, h2, _, c := start(t, nil)
		<-h1.done
		<-h2.done
		if h1.bad != "" || h2.bad != "" {
			t.Fatalf("order: %q, %q", h1.bad, h2.bad)
		}
		waitFor(t, c.reached, "the passed entries' cleanups")
		if got := c.n.Load(); got < n-2*logSegmentSize {
			t.Fatalf("%d of %d objects freed, want at least %d", got, n, n-2*logSegmentSize)
		}
	})

	t.Run("stalled", func(t *testing.T) {
		gate := make(chan struct{})
		h1, h2, l2, c := start(t, gate)
		t.Cleanup(func() { // before stopping the processor: a failed check must not leave h2 held
			select {
			case <-gate:
			default:
				close(gate)
			}
		})
		<-h1.done
		// Garbage made now, with cleanups: once they have run, a
		// collection has had every chance to free unpinned log entries.
		sentinels := newCleanupCounter(n)
		for range n {
			runtime.AddCleanup(&cleanObj{}, sentinels.cleaned, struct{}{})
		}
		waitFor(t, sentinels.reached, "the sentinels' cleanups")
		runtime.GC()
		t.Logf("%d of %d objects freed while a reader is stalled", c.n.Load(), n)
		if got := c.n.Load(); got > 2*logSegmentSize {
			t.Fatalf("%d of %d objects freed while a reader is stalled on the first, want at most %d", got, n, 2*logSegmentSize)
		}
		if s := l2.Stats(); s.Pending != n-1 {
			t.Fatalf("stalled stats = %+v, want Pending %d", s, n-1)
		}
		close(gate)
		<-h2.done
		if h1.bad != "" || h2.bad != "" {
			t.Fatalf("order: %q, %q", h1.bad, h2.bad)
		}
		waitFor(t, c.reached, "the passed entries' cleanups after the release")
	})
}

// seqHandler records the ints it is added, and closes end when it is added
// endMark.
type seqHandler struct {
	end chan struct{}

	mu   sync.Mutex
	vals []int
}

// endMark is the last notification of TestSharedLogConcurrentStress.
const endMark = -1

func (h *seqHandler) OnAdd(obj any, _ bool) {
	v := obj.(int)
	h.mu.Lock()
	h.vals = append(h.vals, v)
	h.mu.Unlock()
	if v == endMark {
		close(h.end)
	}
}
func (h *seqHandler) OnUpdate(_, _ any) {}
func (h *seqHandler) OnDelete(_ any)    {}

func (h *seqHandler) got() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.vals)
}

// Concurrent Distribute calls on the shared log: every handler present
// throughout sees the same sequence (the log serialises writers), holding
// each writer's notifications once and in that writer's order; a reader
// added midway sees a suffix of it and one removed midway a prefix.
func TestSharedLogConcurrentStress(t *testing.T) {
	const writers, perWriter, tag = 2, 2000, 100000
	p := NewProcessor(ProcessorOptions{})
	up := newUpstream("inf")
	newH := func() *seqHandler { return &seqHandler{end: make(chan struct{})} }
	hs := []*seqHandler{newH(), newH(), newH(), newH()}
	var ls []*Listener
	for _, h := range hs {
		ls = append(ls, mustListener(t, p, h, up, Options{Engine: EngineDirect, BacklogWarnThresholds: quiet}))
	}
	wantEngineForm(t, EngineDirect, ls...)
	stop := runReal(p)
	defer stop()

	mid := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				if w == 0 && i == perWriter/2 {
					close(mid)
				}
				p.Distribute(NewAdd(w*tag+i, false), false)
			}
		})
	}
	// Read the counters concurrently with the writers and readers.
	statsDone := make(chan struct{})
	var statsWG sync.WaitGroup
	statsWG.Go(func() {
		for {
			select {
			case <-statsDone:
				return
			default:
			}
			for _, l := range ls {
				l.Stats()
			}
			runtime.Gosched()
		}
	})

	<-mid
	late := newH()
	ll, err := p.NewListener(late, Binding{UpstreamHasSynced: up}, Options{Engine: EngineDirect, BacklogWarnThresholds: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.AddListener(ll); err != nil {
		t.Fatal(err)
	}
	removed := hs[3]
	if err := p.RemoveListener(ls[3]); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(statsDone)
	statsWG.Wait()
	p.Distribute(NewAdd(endMark, false), false)
	for _, h := range append(hs[:3:3], late) {
		<-h.end
	}
	<-ls[3].ShutdownChan()

	global := hs[0].got()
	if len(global) != writers*perWriter+1 || global[len(global)-1] != endMark {
		t.Fatalf("handler 0 got %d calls ending in %d, want %d ending in %d", len(global), global[len(global)-1], writers*perWriter+1, endMark)
	}
	next := make([]int, writers)
	for _, v := range global[:len(global)-1] {
		w, i := v/tag, v%tag
		if w < 0 || w >= writers || i != next[w] {
			t.Fatalf("handler 0: got %d, want writer %d's item %d next", v, w, next[w])
		}
		next[w]++
	}
	for h := 1; h < 3; h++ {
		if got := hs[h].got(); !slices.Equal(got, global) {
			t.Fatalf("handler %d's sequence (%d calls) differs from handler 0's (%d calls)", h, len(got), len(global))
		}
	}
	lateGot := late.got()
	if len(lateGot) == 0 || !slices.Equal(lateGot, global[len(global)-len(lateGot):]) {
		t.Fatalf("late handler's %d calls are not a suffix of the global sequence", len(lateGot))
	}
	removedGot := removed.got()
	// Its pending notifications were dropped at removal: any prefix.
	if len(removedGot) >= len(global) || !slices.Equal(removedGot, global[:len(removedGot)]) {
		t.Fatalf("removed handler's %d calls are not a strict prefix of the global sequence", len(removedGot))
	}
}

// A removed listener's Stats stay as they were at its removal while the
// others go on receiving notifications, as with the direct engine's own
// queue.
func TestSharedLogRemovedStatsFrozen(t *testing.T) {
	eachDirectForm(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		l := mustListener(t, p, &recorder{}, up, Options{Engine: eng})
		mustListener(t, p, &recorder{}, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd("a", false), false)
		synctest.Wait()
		if err := p.RemoveListener(l); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		before := l.Stats()
		for i := range 10 {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		if after := l.Stats(); after != before {
			t.Fatalf("removed listener's stats changed after its removal:\n before %+v\n after  %+v", before, after)
		}
	})
}

// A registration handle kept after RemoveListener does not keep log
// entries reachable: neither one removed from a running processor nor one
// removed before the processor ran.
func TestSharedLogRemovedReaderReleasesLog(t *testing.T) {
	const n = 5 * logSegmentSize
	for _, running := range []bool{true, false} {
		t.Run(fmt.Sprintf("running=%v", running), func(t *testing.T) {
			p := NewProcessor(ProcessorOptions{})
			up := newUpstream("inf")
			h := &idHandler{want: n, done: make(chan struct{})}
			removed := mustListener(t, p, &recorder{}, up, Options{Engine: EngineDirect, BacklogWarnThresholds: quiet})
			l := mustListener(t, p, h, up, Options{Engine: EngineDirect, BacklogWarnThresholds: quiet})
			wantEngineForm(t, EngineDirect, removed, l)
			var stop func()
			if running {
				stop = runReal(p)
			}
			if err := p.RemoveListener(removed); err != nil {
				t.Fatal(err)
			}
			if !running {
				stop = runReal(p)
			}
			defer stop()
			<-removed.ShutdownChan()
			c := newCleanupCounter(n - 2*logSegmentSize)
			for i := range n {
				o := &cleanObj{id: i}
				runtime.AddCleanup(o, c.cleaned, struct{}{})
				p.Distribute(NewAdd(o, false), false)
			}
			<-h.done
			if h.bad != "" {
				t.Fatalf("order: %s", h.bad)
			}
			waitFor(t, c.reached, "the cleanups of the entries the remaining reader passed")
			runtime.KeepAlive(removed)
		})
	}
}

// A notification pending longer than 2^32 milliseconds (about 49.7 days,
// the span of a log entry's time offset) still reports its true age.
func TestSharedLogOldestAgeBeyond32BitMillis(t *testing.T) {
	eachDirectForm(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		g := newGate("add 0 false")
		l := mustListener(t, p, &recorder{before: g.wait}, newUpstream("inf"), Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd(0, false), false)
		synctest.Wait()
		p.Distribute(NewAdd(1, false), false)
		time.Sleep(50 * 24 * time.Hour)
		if got, want := l.Stats().OldestPendingAge, 50*24*time.Hour; got != want {
			t.Errorf("OldestPendingAge = %v, want %v", got, want)
		}
		g.release("add 0 false")
		synctest.Wait()
	})
}

// An entry distributed more than 2^32 milliseconds after its segment began
// closes that segment early: readers follow on to the next segment, in
// order, and ages stay right on both sides.
func TestSharedLogSegmentClosedEarlyByTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		g := newGate("add 0 false")
		r := &recorder{before: g.wait}
		l := mustListener(t, p, r, newUpstream("inf"), Options{})
		other := &recorder{}
		mustListener(t, p, other, newUpstream("inf"), Options{})
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd(0, false), false)
		p.Distribute(NewAdd(1, false), false)
		synctest.Wait()
		time.Sleep(60 * 24 * time.Hour)
		p.Distribute(NewAdd(2, false), false) // closes the first segment after 2 entries
		synctest.Wait()
		time.Sleep(time.Hour)
		if got, want := l.Stats().OldestPendingAge, 60*24*time.Hour+time.Hour; got != want {
			t.Errorf("OldestPendingAge = %v, want %v", got, want)
		}
		g.release("add 0 false")
		synctest.Wait()
		want := []string{"add 0 false", "add 1 false", "add 2 false"}
		wantCalls(t, "stalled", r.got(), want)
		wantCalls(t, "other", other.got(), want)
		for i := 3; i < 3+logSegmentSize+5; i++ {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		if got := len(r.got()); got != 3+logSegmentSize+5 {
			t.Fatalf("%d calls after the early-closed segment, want %d", got, 3+logSegmentSize+5)
		}
		if s := l.Stats(); s.Pending != 0 || s.OldestPendingAge != 0 {
			t.Fatalf("after draining: %+v", s)
		}
	})
}

// eachDirectForm runs f in a synctest bubble on both forms of the direct
// engine (the shared log and a queue of its own), as subtests.
func eachDirectForm(t *testing.T, f func(t *testing.T, eng Engine)) {
	t.Helper()
	for _, name := range []string{"direct-queue", "direct"} {
		v := variantNamed(t, name)
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { f(t, v.eng) })
		})
	}
}

// A sync notification for some readers goes to their private queues, the
// next notification to every reader through the log. A reader that found
// no private notification, and then loads the published count that shows
// the second, still delivers the first one first.
func TestSharedLogPrivateBeforeLaterEntry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var armed atomic.Bool
		var once sync.Once
		r10 := &recorder{before: func(call string) { armed.Store(call == "update u1 u1") }}
		r30 := &recorder{}
		p, clk, l10 := resyncingReaders(t, r10, r30)
		// Right after u1's call, with nothing private yet, l10's reader
		// loads the published count: s1 and u2 are distributed just before.
		l10.engine.(*logReader).beforeLoad = func() {
			if armed.Load() {
				once.Do(func() {
					p.Distribute(NewUpdate("s1", "s1"), true) // l10 only: private
					p.Distribute(NewUpdate("u2", "u2"), false)
				})
			}
		}
		stop := runProcessor(p)
		defer stop()
		resyncFirst(t, p, clk)
		p.Distribute(NewUpdate("u1", "u1"), false)
		synctest.Wait()
		wantCalls(t, "10s", r10.got(), []string{"update u1 u1", "update s1 s1", "update u2 u2"})
		wantCalls(t, "30s", r30.got(), []string{"update u1 u1", "update u2 u2"})
	})
}

// resyncingReaders returns a processor with two listeners reading its
// shared log: l10 calls h10 and resyncs every 10s, the other calls h30
// every 30s. After resyncFirst, sync notifications go to l10 alone, through
// its private queue.
func resyncingReaders(t *testing.T, h10, h30 Handler) (*Processor, *clocktesting.FakeClock, *Listener) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := NewProcessor(ProcessorOptions{Clock: clk})
	up := newUpstream("inf")
	l10 := mustBound(t, p, h10, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 10 * time.Second, ResyncPeriod: 10 * time.Second}, Options{Engine: EngineDirect})
	l30 := mustBound(t, p, h30, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 30 * time.Second, ResyncPeriod: 30 * time.Second}, Options{Engine: EngineDirect})
	wantEngineForm(t, EngineDirect, l10, l30)
	return p, clk, l10
}

// resyncFirst moves clk to 10s and marks the 10s listener of
// resyncingReaders as resyncing.
func resyncFirst(t *testing.T, p *Processor, clk *clocktesting.FakeClock) {
	t.Helper()
	clk.Step(10 * time.Second)
	if !p.ShouldResync() {
		t.Fatal("ShouldResync() at 10s = false")
	}
}
