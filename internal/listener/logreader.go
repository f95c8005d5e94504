package listener

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kfanout/fanout/ringbuffer"
)

// cacheLinePad keeps fields written by different goroutines on different
// cache lines.
type cacheLinePad [64]byte

// privateItem is a notification for one log reader only, to be delivered
// just before the log entry numbered seq.
type privateItem struct {
	n   Notification
	seq uint64
	at  int64
}

// logReader is the direct engine of a listener that buffers without bound
// and calls its handler from one goroutine: it reads the processor's shared
// log through its own cursor. Notifications meant for it alone (a late
// handler's replay of the initial list, a resync that not every handler
// takes) wait in a small private queue, each marked with the log position
// it goes before, so the listener's order is the order of Distribute and
// Add calls.
//
// Its fields are grouped by the goroutine that writes them, so that the
// writer (Distribute) and the reader (the run goroutine) do not share a
// cache line they both write on every notification.
type logReader struct {
	l    *Listener
	log  *sharedLog
	wake chan struct{} // 1-buffered: there may be something to read

	_ cacheLinePad
	// Owned by the run goroutine.
	seg *logSegment // segment of entry seq (or the one before it, when idx == its size)
	idx int         // index of entry seq in seg
	seq uint64      // next entry to read
	pub uint64      // the log's published count, as last loaded
	tg  traceGate   // whether pending must be exact for the trace

	_ cacheLinePad
	// Written by the run goroutine, read by others.
	consumed atomic.Uint64              // entries taken by the run goroutine (seq)
	curSeg   atomic.Pointer[logSegment] // seg, for Stats
	readHigh atomic.Int64               // the largest pending count seen when loading pub

	_ cacheLinePad
	// Owned by the log's writer (under log.mu).
	startSeq     uint64 // published when attached
	endSeq       uint64 // published when detached
	detached     bool
	lastConsumed uint64 // consumed, as last loaded by the writer

	_ cacheLinePad
	// Rarely written.
	sleeping   atomic.Bool  // the run goroutine waits for wake (set true at attach: idle)
	stopped    atomic.Bool  // stop was called
	upCheck    atomic.Int64 // a pending count at or above this may cross a threshold (or, with metrics, anything does)
	downCheck  atomic.Int64 // a pending count below this may end a backlog episode
	privN      atomic.Int64 // items in priv
	notSpilled atomic.Uint64
	// beforeLoad, if set (by tests, before the listener runs), is called
	// before each load of the published count.
	beforeLoad func()

	backlogMu sync.Mutex // serialises refresh
	highWater int64      // guarded by backlogMu

	privMu    sync.Mutex
	priv      *ringbuffer.Ring[privateItem]
	privTotal uint64 // items ever put in priv; guarded by privMu
	privTaken uint64 // items taken from priv by the run goroutine; guarded by privMu
}

// newLogReader returns l's engine reading log; [Processor.AddListener]
// attaches it.
func newLogReader(l *Listener, log *sharedLog) *logReader {
	r := &logReader{l: l, log: log, wake: make(chan struct{}, 1), priv: ringbuffer.New[privateItem](0)}
	r.sleeping.Store(true)
	r.setChecksLocked()
	return r
}

// setChecksLocked recomputes upCheck and downCheck from the backlog thresholds;
// backlogMu held (or the reader not yet shared). With metrics every change
// of the pending count is refreshed.
func (r *logReader) setChecksLocked() {
	if r.l.metrics != nil {
		r.upCheck.Store(math.MinInt64)
		r.downCheck.Store(math.MaxInt64)
		return
	}
	r.upCheck.Store(r.l.backlog.up)
	r.downCheck.Store(r.l.backlog.down)
}

// pendingNow is the number of notifications the listener holds.
func (r *logReader) pendingNow() int64 {
	return int64(r.log.published.Load()-r.consumed.Load()) + r.privN.Load()
}

// refresh records the current pending count: high water, backlog messages
// and metrics. Writer and reader both call it, each when its cheap check
// says the count may matter; it reads the count afresh under backlogMu, so
// the last call records the latest value. The run goroutine passes
// taken: with metrics it also sets the oldest-pending-age gauge, as the
// other engines do when they hand a notification to the handler.
func (r *logReader) refresh(taken bool) {
	r.backlogMu.Lock()
	p := r.pendingNow()
	if p > r.highWater {
		r.highWater = p
	}
	ev := r.l.notePending(p)
	r.setChecksLocked()
	r.backlogMu.Unlock()
	r.l.pendingChanged(p, ev)
	if taken && r.l.metrics != nil {
		age, _ := r.oldestAge()
		r.l.setOldestAge(age)
	}
}

// wakeIfSleeping wakes the run goroutine if it waits; the notification that
// woke it did not spill.
func (r *logReader) wakeIfSleeping() {
	if r.sleeping.Load() && r.sleeping.CompareAndSwap(true, false) {
		r.notSpilled.Add(1)
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// writtenLocked is called by the log's writer, under its lock, once entry pub-1
// is published. It wakes the run goroutine if it sleeps and reports whether
// the pending count must be refreshed. It reads the run goroutine's cursor
// only when the count could have reached upCheck, so that a handler that
// keeps up costs its writer no cache miss on most notifications.
func (r *logReader) writtenLocked(pub uint64) bool {
	r.wakeIfSleeping()
	up := r.upCheck.Load()
	if int64(pub-r.lastConsumed) < up {
		return false
	}
	r.lastConsumed = r.consumed.Load()
	return int64(pub-r.lastConsumed)+r.privN.Load() >= up
}

// add queues n for this listener alone, before the next log entry. The
// processor uses it for a sync notification that not every reader takes,
// and [Listener.add] for a late handler's replay.
func (r *logReader) add(n Notification, at int64) {
	if n.initialListAdd() {
		r.l.syncTracker.Start()
	}
	r.privMu.Lock()
	if r.stopped.Load() {
		r.privMu.Unlock()
		return
	}
	r.priv.WriteOne(privateItem{n: n, seq: r.log.published.Load(), at: at})
	r.privTotal++
	r.privN.Add(1)
	r.privMu.Unlock()
	r.wakeIfSleeping()
	r.refresh(false)
}

// replay is add: add never waits for room.
func (r *logReader) replay(n Notification, at int64) { r.add(n, at) }

// popPrivate returns the oldest private notification if it goes before
// log entry r.seq.
func (r *logReader) popPrivate() (Notification, bool) {
	r.privMu.Lock()
	defer r.privMu.Unlock()
	if it := r.priv.Front(); it != nil && it.seq <= r.seq {
		it, _ := r.priv.ReadOne()
		r.privN.Add(-1)
		r.privTaken++
		return it.n, true
	}
	return Notification{}, false
}

// takePrivate takes into n the oldest private notification if it goes
// before log entry r.seq (see popPrivate). Callers check privN first, so
// that the common case, nothing private, costs no call.
func (r *logReader) takePrivate(n *Notification) bool {
	var ok bool
	if *n, ok = r.popPrivate(); ok {
		r.refresh(true)
	}
	return ok
}

// next waits for the listener's next notification and takes it; it
// reports false once the listener is stopped. pending is what is left.
func (r *logReader) next() (n Notification, pending int64, ok bool) {
	for {
		if r.stopped.Load() {
			return n, 0, false
		}
		// Reload the published count once the snapshot runs out. While
		// traces can be logged, reload it also while the snapshot shows
		// no more than initialBufferSize pending: the pending count handed
		// to runLoop then decides exactly, as client-go's ring length
		// does, whether the call is traced. (A reload is a cache miss on
		// the line the writer updates for every notification.)
		if r.seq < r.pub && (r.pub-r.seq > initialBufferSize || !r.tg.enabled()) || r.loadPub() {
			// A private notification added before entry seq was published
			// goes first. It is visible now: the load of the published
			// count that showed the entry came after it.
			if r.privN.Load() > 0 && r.takePrivate(&n) {
				return n, r.pendingNow(), true
			}
			if r.idx == int(r.seg.size.Load()) {
				r.seg, r.idx = r.seg.next.Load(), 0
				r.curSeg.Store(r.seg)
			}
			n = r.seg.entries[r.idx].notification(r.seg)
			r.idx++
			r.seq++
			r.consumed.Store(r.seq)
			pending = int64(r.pub-r.seq) + r.privN.Load()
			if pending < r.downCheck.Load() {
				r.refresh(true)
			}
			return n, pending, true
		}
		if r.privN.Load() > 0 && r.takePrivate(&n) {
			return n, r.pendingNow(), true
		}
		r.sleeping.Store(true)
		if r.log.published.Load() > r.seq || r.privN.Load() > 0 || r.stopped.Load() {
			r.sleeping.Store(false)
			continue
		}
		select {
		case <-r.wake:
		case <-r.l.stopCh:
		}
	}
}

// loadPub reloads the log's published count and reports whether there is
// an entry to read. It also samples the high water here, without a cache
// miss on the writer's side: the count at a load is exact, and Stats adds
// the current count. A peak reached while the run goroutine worked through
// entries it had already seen is missed by at most what was published
// meanwhile (the metrics' high-water gauge, which refreshes on every
// change, misses nothing).
func (r *logReader) loadPub() bool {
	if r.beforeLoad != nil {
		r.beforeLoad()
	}
	r.pub = r.log.published.Load()
	if p := int64(r.pub-r.seq) + r.privN.Load(); p > r.readHigh.Load() {
		r.readHigh.Store(p)
	}
	return r.seq < r.pub
}

func (r *logReader) start(wg *sync.WaitGroup) {
	r.l.running.Store(true)
	wg.Go(func() {
		defer r.l.finished()
		runLoop(r.l, r)
		// Stopped: let go of the log, which the registration handle
		// would otherwise keep reachable from the cursor on.
		r.seg = nil
		r.curSeg.Store(nil)
	})
}

// stop drops the private queue and makes the run goroutine return; the
// processor detaches the reader from the log.
func (r *logReader) stop() {
	r.privMu.Lock()
	r.stopped.Store(true)
	r.priv = ringbuffer.New[privateItem](0)
	r.privN.Store(0)
	r.privMu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *logReader) unblock() {}

func (r *logReader) stats() Stats {
	r.privMu.Lock()
	total, taken := r.privTotal, r.privTaken
	r.privMu.Unlock()
	s := Stats{Pending: r.pendingNow()}
	if r.stopped.Load() {
		s.Pending = 0
	}
	// The high water reported is stored, so that a later Stats never
	// reports less.
	r.backlogMu.Lock()
	r.highWater = max(r.highWater, r.readHigh.Load(), s.Pending)
	s.HighWater = r.highWater
	r.backlogMu.Unlock()
	r.log.mu.Lock()
	end := r.log.published.Load()
	if r.detached {
		end = r.endSeq
	}
	total += end - r.startSeq
	// Every notification the run goroutine takes is handed to the handler
	// (runLoop), so the calls made are what it took from the log and from
	// its private queue.
	s.Delivered = r.consumed.Load() - r.startSeq + taken
	r.log.mu.Unlock()
	if ns := r.notSpilled.Load(); total > ns {
		s.Spilled = total - ns
	}
	s.OldestPendingAge, _ = r.oldestAge()
	return s
}

// oldestAge returns how long the oldest pending notification has waited:
// the older of the private queue's first and the log entry at the cursor.
func (r *logReader) oldestAge() (time.Duration, bool) {
	if r.stopped.Load() {
		return 0, false
	}
	now := r.l.owner.now()
	var oldest int64
	found := false
	r.privMu.Lock()
	if it := r.priv.Front(); it != nil {
		oldest, found = it.at-it.at%stampQuantum, true
	}
	r.privMu.Unlock()
	if at, ok := r.oldestLogged(); ok && (!found || at < oldest) {
		oldest, found = at, true
	}
	if !found {
		return 0, false
	}
	return time.Duration(now - oldest), true
}

// oldestLogged returns when the log entry at the cursor was distributed,
// rounded down to the millisecond, if it is pending.
func (r *logReader) oldestLogged() (int64, bool) {
	for {
		seg := r.curSeg.Load()
		c := r.consumed.Load()
		if seg == nil || c >= r.log.published.Load() {
			return 0, false
		}
		if c < seg.base {
			continue // the cursor moved between the two loads
		}
		i := c - seg.base
		for i >= uint64(seg.size.Load()) {
			seg, i = seg.next.Load(), i-uint64(seg.size.Load())
		}
		return seg.at(i), true
	}
}

// The engine methods of a listener that reads the shared log: joining
// and leaving attach the reader to the log and detach it.
func (r *logReader) kind() Engine   { return EngineDirect }
func (r *logReader) readsLog() bool { return true }
func (r *logReader) join()          { r.log.attach(r) }
func (r *logReader) leave()         { r.log.detach(r) }
