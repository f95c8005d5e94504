//go:build !race

package listener

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
)

// memObj is one version of one object.
type memObj struct{ id, version int }

func memKey(obj any) (string, error) {
	o, ok := obj.(*memObj)
	if !ok {
		return "", fmt.Errorf("not a *memObj: %T", obj)
	}
	return fmt.Sprint(o.id), nil
}

// latest keeps, per object, the newest version a handler saw.
type latest struct {
	mu     sync.Mutex
	seen   []int
	calls  int
	inFlow bool // check that versions arrive in global order
	next   int  // next expected global sequence number when inFlow
	bad    string
	gate   chan struct{}
}

func (h *latest) OnAdd(obj any, _ bool) { h.on(obj) }
func (h *latest) OnUpdate(_, obj any)   { h.on(obj) }
func (h *latest) OnDelete(obj any)      { h.on(obj) }
func (h *latest) on(obj any) {
	if h.gate != nil {
		<-h.gate
	}
	o := obj.(*memObj)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	if h.inFlow && h.bad == "" {
		if seq := o.version*len(h.seen) + o.id; seq != h.next {
			h.bad = fmt.Sprintf("got sequence %d, want %d", seq, h.next)
		}
		h.next++
	}
	h.seen[o.id] = o.version
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// memoryRun distributes updates round-robin over objects to a stalled
// handler with the given policy and a healthy one, and returns the live heap
// growth while the stalled one's backlog is at its peak.
func memoryRun(t *testing.T, policy OverflowPolicy, objects, maxPending, updates int) (growth uint64) {
	p := NewProcessor(ProcessorOptions{})
	up := newUpstream("inf")
	up.sync()
	stalled := &latest{seen: make([]int, objects), gate: make(chan struct{})}
	healthy := &latest{seen: make([]int, objects), inFlow: true}
	ls := mustListener(t, p, stalled, up, Options{Engine: EngineDirect, Overflow: policy, MaxPending: maxPending, KeyFunc: memKey})
	mustListener(t, p, healthy, up, Options{Engine: EngineDirect})
	stop := runProcessor(p)
	defer stop()

	objs := make([]memObj, objects) // reused: one live version per object
	for i := range objs {
		objs[i] = memObj{id: i}
		p.Distribute(NewAdd(&objs[i], false), false)
	}
	synctest.Wait()
	before := liveHeap()
	maxPendingSeen := int64(0)
	for u := range updates {
		i := u % objects
		old := &objs[i]
		n := &memObj{id: i, version: u/objects + 1}
		objs[i] = *n
		p.Distribute(NewUpdate(old, n), false)
		if u%10000 == 0 {
			if s := ls.Stats(); s.Pending > maxPendingSeen {
				maxPendingSeen = s.Pending
			}
		}
	}
	synctest.Wait() // the healthy handler has caught up
	after := liveHeap()
	if after > before {
		growth = after - before
	}
	s := ls.Stats()
	t.Logf("%v: heap growth %d KiB, stalled stats %+v", policy, growth/1024, s)
	if policy == OverflowCoalesce && (s.HighWater > int64(objects+maxPending) || maxPendingSeen > int64(objects+maxPending)) {
		t.Errorf("Pending reached %d (high water %d), want at most objects+MaxPending = %d", maxPendingSeen, s.HighWater, objects+maxPending)
	}
	close(stalled.gate)
	synctest.Wait()
	if s := ls.Stats(); s.Pending != 0 {
		t.Errorf("stalled handler still has %d pending after resuming", s.Pending)
	}
	if healthy.calls != objects+updates || healthy.bad != "" {
		t.Errorf("healthy handler: %d calls (want %d), order: %q", healthy.calls, objects+updates, healthy.bad)
	}
	want := updates / objects
	for id, v := range stalled.seen {
		if v != want {
			t.Fatalf("stalled handler ended at version %d of object %d, want %d", v, id, want)
		}
	}
	return growth
}

// The memory test of issue 6: a stalled handler with OverflowCoalesce keeps
// the live heap bounded by the number of objects; with OverflowGrow it grows
// with the number of updates.
func TestCoalesceBoundsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory test")
	}
	const objects, maxPending, updates = 1000, 100, 1_000_000
	var coalesce, grow uint64
	synctest.Test(t, func(t *testing.T) { coalesce = memoryRun(t, OverflowCoalesce, objects, maxPending, updates) })
	if coalesce > 4<<20 {
		t.Errorf("OverflowCoalesce: live heap grew %d KiB, want under 4 MiB", coalesce/1024)
	}
	synctest.Test(t, func(t *testing.T) { grow = memoryRun(t, OverflowGrow, objects, maxPending, updates) })
	if grow < 10*coalesce || grow < 20<<20 {
		t.Errorf("OverflowGrow: live heap grew %d KiB, want much more than coalescing's %d KiB", grow/1024, coalesce/1024)
	}
}
