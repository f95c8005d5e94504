package listener

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// stepRecorder records each call as the Notification it was for, then
// blocks until the test sends on step (or closes it).
type stepRecorder struct {
	step  chan struct{}
	mu    sync.Mutex
	calls []Notification
}

func newStepRecorder() *stepRecorder { return &stepRecorder{step: make(chan struct{})} }

func (h *stepRecorder) record(n Notification) {
	h.mu.Lock()
	h.calls = append(h.calls, n)
	h.mu.Unlock()
	<-h.step
}

func (h *stepRecorder) OnAdd(obj any, initial bool) { h.record(NewAdd(obj, initial)) }
func (h *stepRecorder) OnUpdate(old, obj any)       { h.record(NewUpdate(old, obj)) }
func (h *stepRecorder) OnDelete(obj any)            { h.record(NewDelete(obj)) }

func (h *stepRecorder) got() []Notification {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

// listenerModel is the reference for one listener: what it has been handed
// and not yet given to its handler (queue), the call in progress, and the
// calls that returned.
type listenerModel struct {
	l         *Listener
	h         *stepRecorder
	queue     []Notification
	inCall    *Notification
	delivered []Notification
	maxSeen   int   // the most notifications pending at any moment
	highWater int64 // last Stats().HighWater
	synced    bool  // HasSynced became true
	removed   bool
}

func (m *listenerModel) hand(n Notification) {
	m.queue = append(m.queue, n)
	// Until the run goroutine takes it, n is pending too.
	m.maxSeen = max(m.maxSeen, len(m.queue))
}

// take moves the next notification into the handler, as the run goroutine
// does once it is free.
func (m *listenerModel) take() {
	if m.inCall == nil && len(m.queue) > 0 {
		n := m.queue[0]
		m.inCall, m.queue = &n, m.queue[1:]
	}
}

// syncedWith is what HasSynced must say: true once the informer has
// synced while no initial-list add was pending or being handled, and from
// then on.
func (m *listenerModel) syncedWith(upstream bool) bool {
	if m.synced || !upstream || m.inCall != nil && m.inCall.initialListAdd() {
		return m.synced
	}
	m.synced = !slices.ContainsFunc(m.queue, Notification.initialListAdd)
	return m.synced
}

// fuzzResyncPeriods are the resync periods of the listeners a fuzz input
// creates, in turn.
var fuzzResyncPeriods = []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}

// FuzzSharedLog drives a processor whose listeners all read its shared log
// (the direct engine's form for OverflowGrow and one goroutine), with their
// private queues (sync notifications only some listeners take, and Add
// calls as in a late handler's replay), against one listenerModel per
// listener. Handlers block in each call until the input lets one return.
// Each byte is one operation (bits 0-2; bits 3-6 are its arguments):
//
//	0-2 Distribute an add (bit 5: initial-list), update or delete of a key
//	3   Distribute a sync update (to the listeners ShouldResync marked)
//	4   Add to one listener alone (its private queue; bit 5: initial-list)
//	5   let one listener's handler call return
//	6   sleep a second and call ShouldResync
//	7   by bits 3-4: the informer syncs; a listener joins; one is removed;
//	    nothing
//
// After each operation, once every goroutine is idle, it compares each
// listener's handler calls (order, exactly once), Stats (Pending, Delivered,
// HighWater between the largest Pending a Stats call reported and the most
// ever pending, Coalesced and Panics 0), HasSynced, and the memory the
// reader keeps: its cursor's segment holds its cursor, its private queue
// holds what privN counts, and a removed or stopped reader drops its
// cursor, the log its tail once no reader is left.
func FuzzSharedLog(f *testing.F) {
	const (
		add, update, del, syncUpd, private, step, resync = slAdd, slUpdate, slDelete, slSync, slPrivate, slStep, slResync
		initial                                          = 32
		upSync, join, remove, none                       = slAdmin, slAdmin | 1<<3, slAdmin | 2<<3, slAdmin | 3<<3
	)
	f.Add(uint8(1), []byte{add | initial, add | initial | 1<<3, upSync, step, step, step})
	f.Add(uint8(2), []byte{add, update, del, step, step, step, step, step, step})
	f.Add(uint8(2), []byte{add, resync, resync, syncUpd, syncUpd | 1<<3, step, step, step | 1<<3, step, step | 1<<3})
	f.Add(uint8(1), []byte{add, join, private | 1<<3 | initial, private | 1<<3 | initial, add, upSync, step | 1<<3, step | 1<<3, step | 1<<3})
	f.Add(uint8(3), []byte{add, add, remove | 1<<5, step, add, remove, remove | 2<<5, join, add, step})
	f.Add(uint8(2), []byte{add | initial, resync, resync, syncUpd, private, add, upSync, step, step, step, step, none})
	// HasSynced stays true once true, even with a later initial-list add.
	f.Add(uint8(1), []byte{add | initial, add | initial, upSync, step, step, add | initial})
	f.Fuzz(func(t *testing.T, first uint8, ops []byte) {
		synctest.Test(t, func(t *testing.T) { runSharedLogFuzz(t, 1+int(first%3), ops) })
	})
}

// The operations of FuzzSharedLog, by a byte's bits 0-2.
const (
	slAdd = iota
	slUpdate
	slDelete
	slSync
	slPrivate
	slStep
	slResync
	slAdmin
)

func runSharedLogFuzz(t *testing.T, initialListeners int, ops []byte) {
	p := NewProcessor(ProcessorOptions{})
	up := newUpstream("inf")
	upSynced := false
	var ms []*listenerModel
	newModel := func() *listenerModel {
		h := newStepRecorder()
		period := fuzzResyncPeriods[len(ms)%len(fuzzResyncPeriods)]
		l := mustBound(t, p, h, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: period, ResyncPeriod: period}, Options{Engine: EngineDirect, Name: fmt.Sprintf("l%d", len(ms)), BacklogWarnThresholds: []int{-1}})
		if _, ok := l.engine.(*logReader); !ok {
			t.Fatalf("listener engine %T, want the shared log's reader", l.engine)
		}
		m := &listenerModel{l: l, h: h}
		ms = append(ms, m)
		return m
	}
	live := func() []*listenerModel {
		var out []*listenerModel
		for _, m := range ms {
			if !m.removed {
				out = append(out, m)
			}
		}
		return out
	}
	pick := func(b byte) *listenerModel {
		l := live()
		if len(l) == 0 {
			return nil
		}
		return l[int(b>>3&3)%len(l)]
	}
	for range initialListeners {
		newModel()
	}
	stop := runProcessor(p)
	defer func() {
		for _, m := range live() {
			close(m.h.step)
		}
		stop()
		for _, m := range ms {
			r := m.l.engine.(*logReader)
			if r.seg != nil || r.curSeg.Load() != nil {
				t.Errorf("%s: the stopped reader still holds its cursor", m.l.Name())
			}
		}
		if p.log.tail != nil || len(p.log.readers) != 0 {
			t.Errorf("stopped processor's log keeps its tail (%d readers)", len(p.log.readers))
		}
	}()

	for i, b := range ops {
		o := decodeQueueOp(b)
		obj := fuzzObj(o.key%(fuzzKeys-1), i)
		switch b & 7 {
		case slAdd, slUpdate, slDelete:
			n := [3]Notification{NewAdd(obj, b&32 != 0), NewUpdate(fuzzObj(o.key%(fuzzKeys-1), -i), obj), NewDelete(obj)}[b&7]
			p.Distribute(n, false)
			for _, m := range live() {
				m.hand(n)
			}
		case slSync:
			n := NewUpdate(obj, obj)
			marked := map[*Listener]bool{}
			for _, m := range p.set.Load().all {
				marked[m.l] = m.sync
			}
			p.Distribute(n, true)
			for _, m := range live() {
				if marked[m.l] {
					m.hand(n)
				}
			}
		case slPrivate:
			if m := pick(b); m != nil {
				n := NewAdd(obj, b&32 != 0)
				m.l.add(n)
				m.hand(n)
			}
		case slStep:
			if m := pick(b); m != nil && m.inCall != nil {
				m.h.step <- struct{}{}
				m.delivered = append(m.delivered, *m.inCall)
				m.inCall = nil
			}
		case slResync:
			time.Sleep(time.Second)
			p.ShouldResync()
		case slAdmin:
			switch b >> 3 & 3 {
			case 0:
				if !upSynced {
					up.sync()
					upSynced = true
				}
			case 1:
				if len(live()) < 4 && len(ms) < 8 {
					m := newModel()
					p.StartWatchSynced(m.l)
				}
			case 2:
				if m := pickRemoved(b, live()); m != nil {
					if err := p.RemoveListener(m.l); err != nil {
						t.Fatal(err)
					}
					m.removed = true
					close(m.h.step)
				}
			}
		}
		synctest.Wait()
		for _, m := range live() {
			m.take()
		}
		for _, m := range ms {
			checkListenerModel(t, i, m, upSynced)
		}
	}
}

// pickRemoved chooses the listener a remove operation removes, by bits 5-6.
func pickRemoved(b byte, live []*listenerModel) *listenerModel {
	if len(live) == 0 {
		return nil
	}
	return live[int(b>>5&3)%len(live)]
}

func checkListenerModel(t *testing.T, step int, m *listenerModel, upSynced bool) {
	t.Helper()
	name := m.l.Name()
	r := m.l.engine.(*logReader)
	if m.removed {
		if !isClosed(m.l.ShutdownChan()) {
			t.Fatalf("op %d: %s removed, its ShutdownChan is open", step, name)
		}
		if s := m.l.Stats(); s.Pending != 0 {
			t.Fatalf("op %d: %s removed, still %d pending", step, name, s.Pending)
		}
		if r.seg != nil || r.curSeg.Load() != nil {
			t.Fatalf("op %d: %s removed, its reader still holds its cursor", step, name)
		}
		return
	}
	want := slices.Clone(m.delivered)
	if m.inCall != nil {
		want = append(want, *m.inCall)
	}
	if got := m.h.got(); !slices.Equal(got, want) {
		t.Fatalf("op %d: %s handler calls\n got  %+v\n want %+v", step, name, got, want)
	}
	s := m.l.Stats()
	if s.Pending != int64(len(m.queue)) || s.Delivered != uint64(len(want)) || s.Coalesced != 0 || s.Panics != 0 {
		t.Fatalf("op %d: %s stats %+v; model: %d pending, %d delivered", step, name, s, len(m.queue), len(want))
	}
	if s.HighWater < m.highWater || s.HighWater < s.Pending || s.HighWater > int64(m.maxSeen) {
		t.Fatalf("op %d: %s HighWater %d: last reported %d, pending %d, most ever pending %d", step, name, s.HighWater, m.highWater, s.Pending, m.maxSeen)
	}
	m.highWater = s.HighWater
	if total := uint64(len(want) + len(m.queue)); s.Spilled > total {
		t.Fatalf("op %d: %s Spilled %d of %d handed", step, name, s.Spilled, total)
	}
	if got, want := m.l.HasSynced(), m.syncedWith(upSynced); got != want {
		t.Fatalf("op %d: %s HasSynced %v, model %v", step, name, got, want)
	}
	// Memory: the reader pins the log only from its cursor on.
	seg, c := r.curSeg.Load(), r.consumed.Load()
	if seg == nil || c < seg.base || c > seg.base+uint64(seg.size.Load()) {
		t.Fatalf("op %d: %s cursor %d outside its segment %+v", step, name, c, seg)
	}
	r.privMu.Lock()
	privLen := r.priv.Len()
	r.privMu.Unlock()
	if int64(privLen) != r.privN.Load() || privLen > len(m.queue)+1 {
		t.Fatalf("op %d: %s private queue holds %d, privN %d, %d pending", step, name, privLen, r.privN.Load(), len(m.queue))
	}
}

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
			r10, r30 := &recorder{}, &recorder{}
			p, clk, l10 := resyncingReaders(t, r10, r30)

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
			resyncFirst(t, p, clk)
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
