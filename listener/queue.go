package listener

import "github.com/kfanout/fanout/ringbuffer"

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

// timed is a notification with its enqueue time.
type timed struct {
	n  Notification
	at int64
}

// fifoQueue keeps every notification in order: OverflowGrow and
// OverflowBlock.
type fifoQueue struct {
	r    *ringbuffer.Ring[timed]
	size int // initial capacity
}

func newFIFOQueue(size int) *fifoQueue {
	return &fifoQueue{r: ringbuffer.New[timed](size), size: size}
}

func (q *fifoQueue) push(n Notification, at int64) pushResult {
	q.r.WriteOne(timed{n: n, at: at})
	return pushResult{}
}

func (q *fifoQueue) pop() (Notification, bool) {
	t, ok := q.r.ReadOne()
	return t.n, ok
}

func (q *fifoQueue) len() int { return q.r.Len() }

func (q *fifoQueue) oldest() (int64, bool) {
	t, ok := q.r.Peek()
	return t.at, ok
}

func (q *fifoQueue) reset() { q.r = ringbuffer.New[timed](q.size) }
