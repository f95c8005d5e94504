package listener

import (
	"sync"
	"sync/atomic"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kfanout/fanout/ringbuffer"
)

// classic is client-go's processorListener engine: add sends on an unbuffered
// addCh; pop pumps to an unbuffered nextCh, holding one notification in hand
// and spilling into the ring only when another arrives before that one is
// taken; run receives from nextCh and calls the handler.
//
// One deliberate difference: client-go stops pop by closing addCh, so an add
// racing with the stop would panic; here the listener's stopCh stops both
// pop and any add waiting to send.
type classic struct {
	l      *Listener
	addCh  chan Notification
	nextCh chan Notification

	buf *ringbuffer.Ring[Notification] // touched only by pop

	// With metrics, pop also keeps each pending notification's enqueue
	// time (on the listener's clock, since base): nextAt for the one in
	// hand, times for the ring, in step with buf.
	timed  bool
	base   time.Time
	nextAt int64
	times  *ringbuffer.Ring[int64]

	pending   atomic.Int64  // buf.Len() plus the one in hand; written only by pop
	highWater atomic.Int64  // written only by pop
	spilled   atomic.Uint64 // ring writes; written only by pop
	oldestAt  atomic.Int64  // nextAt while one is in hand and timed, else -1
}

func newClassic(l *Listener, size int) *classic {
	c := &classic{
		l:      l,
		addCh:  make(chan Notification),
		nextCh: make(chan Notification),
		buf:    ringbuffer.New[Notification](size),
		timed:  l.metrics != nil,
	}
	c.oldestAt.Store(-1)
	if c.timed {
		c.base = l.clock.Now()
		c.times = ringbuffer.New[int64](size)
	}
	return c
}

// now is the current time on the listener's clock, since base.
func (c *classic) now() int64 { return int64(c.l.clock.Since(c.base)) }

func (c *classic) add(n Notification, _ int64) {
	if n.initialListAdd() {
		c.l.syncTracker.Start()
	}
	select {
	case c.addCh <- n:
	case <-c.l.stopCh:
	}
}

// replay is add: add never waits for room.
func (c *classic) replay(n Notification, at int64) { c.add(n, at) }

func (c *classic) start(wg *sync.WaitGroup) {
	c.l.running.Store(true)
	wg.Go(c.pop)
	wg.Go(func() {
		defer c.l.finished()
		c.run()
	})
}

// stop does nothing: pop sees stopCh and drops what is pending.
func (c *classic) stop() {}

// unblock does nothing: add never waits for room.
func (c *classic) unblock() {}

func (c *classic) kind() Engine   { return EngineClassic }
func (c *classic) readsLog() bool { return false }
func (c *classic) join()          {}
func (c *classic) leave()         {}

func (c *classic) pop() {
	defer utilruntime.HandleCrashWithLogger(c.l.logger)
	defer close(c.nextCh) // tells run to stop

	var nextCh chan<- Notification // nil (case disabled) while nothing is in hand
	var next Notification
	for {
		select {
		case nextCh <- next:
			var ok bool
			if next, ok = c.buf.ReadOne(); !ok {
				nextCh = nil
			}
			if c.timed {
				c.handedOver(ok)
			}
			c.changed(c.pending.Add(-1))
		case n := <-c.addCh:
			var at int64
			if c.timed {
				at = c.now()
			}
			if nextCh == nil {
				// Nothing in hand: skip the ring.
				next, nextCh = n, c.nextCh
				if c.timed {
					c.nextAt = at
					c.oldestAt.Store(at)
				}
			} else {
				c.buf.WriteOne(n)
				c.spilled.Add(1)
				if c.timed {
					c.times.WriteOne(at)
				}
			}
			p := c.pending.Add(1)
			if p > c.highWater.Load() {
				c.highWater.Store(p)
			}
			c.changed(p)
		case <-c.l.stopCh:
			// Drop everything pending, including the notification in hand.
			c.buf = nil
			c.times = nil
			c.oldestAt.Store(-1)
			c.pending.Store(0)
			return
		}
	}
}

// changed reports the new pending count p; pop is the only writer, so
// nothing needs a lock.
func (c *classic) changed(p int64) {
	c.l.pendingChanged(p, c.l.notePending(p))
}

// handedOver moves the enqueue times along after the notification in hand
// was handed to run; ok says whether the ring had the next one. It sets the
// age gauge to the new oldest notification's age (0 when none is left).
func (c *classic) handedOver(ok bool) {
	if !ok {
		c.oldestAt.Store(-1)
		c.l.setOldestAge(0)
		return
	}
	c.nextAt, _ = c.times.ReadOne()
	c.oldestAt.Store(c.nextAt)
	c.l.setOldestAge(time.Duration(c.now() - c.nextAt))
}

func (c *classic) oldestAge() (time.Duration, bool) {
	at := c.oldestAt.Load()
	if at < 0 {
		return 0, false
	}
	return time.Duration(c.now() - at), true
}

func (c *classic) run() {
	defer c.l.enterCaller()()
	crashed := false
	var tg traceGate
	for n := range c.nextCh {
		if crashed {
			c.l.waitAfterCrash()
		}
		p := c.pending.Load()
		crashed = c.l.deliver(n, p, p > initialBufferSize && tg.enabled())
		c.l.returned(n.Seq, p)
	}
}

func (c *classic) stats() Stats {
	s := Stats{
		Pending:   c.pending.Load(),
		HighWater: c.highWater.Load(),
		Spilled:   c.spilled.Load(),
	}
	s.OldestPendingAge, _ = c.oldestAge()
	return s
}
