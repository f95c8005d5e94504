package listener

import (
	"time"

	"github.com/kfanout/fanout/ringbuffer"
)

// queue is the direct engine's pending buffer. It is plain single-goroutine
// code: the engine guards it with its mutex. Times are nanoseconds on the
// listener's clock since the listener was created.
type queue interface {
	// push appends n, enqueued at time at, and returns what it did.
	push(n Notification, at int64) pushResult
	// pop removes and returns the oldest pending notification.
	pop() (n Notification, ok bool)
	// len returns the number of pending notifications.
	len() int
	// oldest returns the enqueue time of the oldest pending notification.
	oldest() (at int64, ok bool)
	// reset drops everything pending.
	reset()
}

// pushResult reports what a push did besides buffering.
type pushResult struct {
	// coalesced is the number of notifications merged away.
	coalesced int
	// finishedInitial is the number of initial-list adds that will not be
	// delivered (merged away) and must count as finished for HasSynced.
	finishedInitial int
	// keyErr is set when the notification's key could not be computed (it
	// was queued as is).
	keyErr error
}

// fifoQueue keeps every notification in order: OverflowGrow and
// OverflowBlock. Enqueue times are kept apart from the notifications, as
// runs of notifications enqueued within the same stampQuantum, so that a
// pending notification costs one 40-byte ring slot and its time almost
// nothing.
type fifoQueue struct {
	r      *ringbuffer.Ring[Notification]
	stamps *ringbuffer.Ring[stampRun] // oldest run first
	size   int                        // initial capacity
}

// stampQuantum is the resolution of enqueue times, and so of
// Stats.OldestPendingAge, in the FIFO queue: a time is rounded down to a
// multiple of it.
const stampQuantum = int64(time.Millisecond)

// stampRun is n consecutive notifications enqueued at (rounded) time at.
type stampRun struct {
	at int64
	n  int
}

func newFIFOQueue(size int) *fifoQueue {
	return &fifoQueue{r: ringbuffer.New[Notification](size), stamps: ringbuffer.New[stampRun](0), size: size}
}

func (q *fifoQueue) push(n Notification, at int64) pushResult {
	q.r.WriteOne(n)
	at -= at % stampQuantum
	if last := q.stamps.Back(); last != nil && last.at == at {
		last.n++
	} else {
		q.stamps.WriteOne(stampRun{at: at, n: 1})
	}
	return pushResult{}
}

func (q *fifoQueue) pop() (Notification, bool) {
	n, ok := q.r.ReadOne()
	if ok {
		if first := q.stamps.Front(); first.n > 1 {
			first.n--
		} else {
			q.stamps.ReadOne()
		}
	}
	return n, ok
}

func (q *fifoQueue) len() int { return q.r.Len() }

func (q *fifoQueue) oldest() (int64, bool) {
	if first := q.stamps.Front(); first != nil {
		return first.at, true
	}
	return 0, false
}

func (q *fifoQueue) reset() {
	q.r = ringbuffer.New[Notification](q.size)
	q.stamps = ringbuffer.New[stampRun](0)
}
