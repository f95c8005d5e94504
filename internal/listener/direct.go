package listener

import (
	"sync"
	"time"
)

// blockLogInterval is how often an add waiting for room under OverflowBlock
// logs, at most.
const blockLogInterval = 10 * time.Second

// direct is fanout's engine: add appends to a mutex-guarded queue and wakes
// one run goroutine, which takes the notifications one at a time and calls
// the handler (or, with Workers > 1, hands them to workers by key). There is
// no pump goroutine and no channel handoff per notification.
type direct struct {
	l          *Listener
	policy     OverflowPolicy
	maxPending int
	workers    int

	wake      chan struct{} // 1-buffered: the queue may have work
	unblockCh chan struct{} // closed by unblock
	unblockMu sync.Once

	mu        sync.Mutex
	q         queue
	active    bool          // the run goroutine took a notification and has not found the queue empty since
	sleeping  bool          // the run goroutine found the queue empty and waits for wake
	room      chan struct{} // non-nil while adds wait for room; closed when room frees
	lastLog   time.Time     // last "waiting for room" log
	keyErrLog bool          // a key error was logged
	highWater int64
	spilled   uint64
	coalesced uint64
}

func newDirect(l *Listener, size int, opts Options) *direct {
	d := &direct{
		l:          l,
		policy:     opts.Overflow,
		maxPending: opts.MaxPending,
		workers:    opts.Workers,
		wake:       make(chan struct{}, 1),
		unblockCh:  make(chan struct{}),
	}
	if d.policy == OverflowCoalesce {
		d.q = newCoalesceQueue(size, opts.MaxPending, opts.KeyFunc)
	} else {
		d.q = newFIFOQueue(size)
	}
	return d
}

// now is the current time on the listener's clock, as a queue time.
func (d *direct) now() int64 { return d.l.owner.now() }

func (d *direct) add(n Notification, at int64) { d.push(n, at, d.policy == OverflowBlock) }

// replay queues n without waiting for room: a replayed notification is the
// handler's starting state, which OverflowBlock does not bound.
func (d *direct) replay(n Notification, at int64) { d.push(n, at, false) }

// push queues n; with bounded it first waits for room (OverflowBlock).
func (d *direct) push(n Notification, at int64, bounded bool) {
	if n.initialListAdd() {
		d.l.syncTracker.Start()
	}
	d.mu.Lock()
	if d.l.stopped() || (bounded && !d.waitForRoomLocked()) {
		d.mu.Unlock()
		return
	}
	if d.active || d.q.len() > 0 {
		d.spilled++
	}
	res := d.q.push(n, at)
	d.coalesced += uint64(res.coalesced)
	p := int64(d.q.len())
	if p > d.highWater {
		d.highWater = p
	}
	ev := d.l.notePending(p)
	logKeyErr := res.keyErr != nil && !d.keyErrLog
	if logKeyErr {
		d.keyErrLog = true
	}
	wake := d.sleeping
	d.sleeping = false
	d.mu.Unlock()

	d.l.pendingChanged(p, ev)
	if res.coalesced > 0 && d.l.metrics != nil {
		d.l.metrics.coalesced.Add(float64(res.coalesced))
	}
	for range res.finishedInitial {
		d.l.syncTracker.Finished()
	}
	if logKeyErr {
		d.l.logger.Error(res.keyErr, "Cannot key a notification; it is queued without coalescing (logged once per handler)", "handler", d.l.name)
	}
	if wake {
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

// waitForRoomLocked waits, with d.mu held (released while waiting), until
// fewer than maxPending notifications are pending. It reports false if the
// listener was stopped or unblocked meanwhile: the notification is dropped.
func (d *direct) waitForRoomLocked() bool {
	var timer interface {
		C() <-chan time.Time
		Stop() bool
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for d.q.len() >= d.maxPending {
		select {
		case <-d.unblockCh:
			return false
		case <-d.l.stopCh:
			return false
		default:
		}
		if d.room == nil {
			d.room = make(chan struct{})
		}
		room, pending := d.room, d.q.len()
		now := d.l.clock.Now()
		logNow := d.lastLog.IsZero() || now.Sub(d.lastLog) >= blockLogInterval
		if logNow {
			d.lastLog = now
		}
		d.mu.Unlock()
		if logNow {
			d.l.logger.Info("Distribution is waiting for a slow handler (OverflowBlock)", "handler", d.l.name, "pending", pending, "maxPending", d.maxPending)
		}
		if timer == nil {
			timer = d.l.clock.NewTimer(blockLogInterval)
		}
		select {
		case <-room:
		case <-d.unblockCh:
		case <-d.l.stopCh:
		case <-timer.C():
			timer = d.l.clock.NewTimer(blockLogInterval)
		}
		d.mu.Lock()
	}
	return true
}

// next waits for the oldest pending notification and removes it; it
// reports false once the listener is stopped. pending is what is left.
func (d *direct) next() (n Notification, pending int64, ok bool) {
	for {
		d.mu.Lock()
		if d.l.stopped() {
			d.active = false
			d.mu.Unlock()
			return n, 0, false
		}
		n, ok = d.q.pop()
		d.active = ok
		if ok {
			pending = int64(d.q.len())
			if d.room != nil {
				close(d.room)
				d.room = nil
			}
			ev := d.l.notePending(pending)
			var age time.Duration
			if d.l.metrics != nil {
				age, _ = d.oldestAgeLocked()
			}
			d.mu.Unlock()
			d.l.pendingChanged(pending, ev)
			d.l.setOldestAge(age)
			return n, pending, true
		}
		d.sleeping = true
		d.mu.Unlock()
		select {
		case <-d.wake:
		case <-d.l.stopCh:
		}
	}
}

func (d *direct) start(wg *sync.WaitGroup) {
	d.l.running.Store(true)
	wg.Go(func() {
		defer d.l.finished()
		if d.workers > 1 {
			d.runWorkers()
		} else {
			runLoop(d.l, d)
		}
	})
}

func (d *direct) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.q.reset()
	if d.room != nil {
		close(d.room)
		d.room = nil
	}
}

func (d *direct) unblock() {
	d.unblockMu.Do(func() { close(d.unblockCh) })
}

func (d *direct) kind() Engine   { return EngineDirect }
func (d *direct) readsLog() bool { return false }
func (d *direct) join()          {}
func (d *direct) leave()         {}

func (d *direct) stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := Stats{
		Pending:   int64(d.q.len()),
		HighWater: d.highWater,
		Spilled:   d.spilled,
		Coalesced: d.coalesced,
	}
	s.OldestPendingAge, _ = d.oldestAgeLocked()
	return s
}

func (d *direct) oldestAge() (time.Duration, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.oldestAgeLocked()
}

// oldestAgeLocked is oldestAge with d.mu held.
func (d *direct) oldestAgeLocked() (time.Duration, bool) {
	at, ok := d.q.oldest()
	if !ok {
		return 0, false
	}
	return time.Duration(d.now() - at), true
}
