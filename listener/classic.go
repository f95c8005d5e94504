package listener

import (
	"sync"
	"sync/atomic"

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

	pending   atomic.Int64  // buf.Len(); written only by pop
	highWater atomic.Int64  // written only by pop
	spilled   atomic.Uint64 // ring writes; written only by pop
}

func newClassic(l *Listener, size int) *classic {
	return &classic{
		l:      l,
		addCh:  make(chan Notification),
		nextCh: make(chan Notification),
		buf:    ringbuffer.New[Notification](size),
	}
}

func (c *classic) add(n Notification) {
	if n.initialListAdd() {
		c.l.syncTracker.Start()
	}
	select {
	case c.addCh <- n:
	case <-c.l.stopCh:
	}
}

func (c *classic) start(wg *sync.WaitGroup) {
	wg.Go(c.pop)
	wg.Go(func() {
		defer close(c.l.runFinished)
		c.run()
	})
}

// stop does nothing: pop sees stopCh and drops what is pending.
func (c *classic) stop() {}

// unblock does nothing: add never waits for room.
func (c *classic) unblock() {}

func (c *classic) canBlock() bool { return false }

func (c *classic) pop() {
	defer utilruntime.HandleCrashWithLogger(c.l.logger)
	defer close(c.nextCh) // tells run to stop

	var nextCh chan<- Notification // nil (case disabled) while nothing is in hand
	var next Notification
	for {
		select {
		case nextCh <- next:
			var ok bool
			if next, ok = c.buf.ReadOne(); ok {
				c.pending.Add(-1)
			} else {
				nextCh = nil
			}
		case n := <-c.addCh:
			if nextCh == nil {
				// Nothing in hand: skip the ring.
				next, nextCh = n, c.nextCh
				continue
			}
			c.buf.WriteOne(n)
			c.spilled.Add(1)
			if p := c.pending.Add(1); p > c.highWater.Load() {
				c.highWater.Store(p)
			}
		case <-c.l.stopCh:
			// Drop everything pending, including the notification in hand.
			c.buf = nil
			c.pending.Store(0)
			return
		}
	}
}

func (c *classic) run() {
	crashed := false
	for n := range c.nextCh {
		if crashed {
			c.l.waitAfterCrash()
		}
		crashed = c.l.deliver(n, c.pending.Load())
	}
}

func (c *classic) stats() Stats {
	return Stats{
		Pending:   c.pending.Load(),
		HighWater: c.highWater.Load(),
		Spilled:   c.spilled.Load(),
	}
}
