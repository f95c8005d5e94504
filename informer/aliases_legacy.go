package informer

import "github.com/kfanout/fanout/deltafifo"

type (
	// FIFO is a queue of the latest object per key; see deltafifo.FIFO.
	FIFO = deltafifo.FIFO
	// ErrRequeue is returned by a PopProcessFunc to put the popped item back
	// (client-go's contract up to v0.32); see deltafifo.ErrRequeue.
	ErrRequeue = deltafifo.ErrRequeue
)

// NewFIFO returns an empty FIFO that keys objects with keyFunc.
func NewFIFO(keyFunc KeyFunc) *FIFO { return deltafifo.NewFIFO(keyFunc) }

// Pop pops one item from queue with a process function that does nothing,
// and returns it (nil if the queue is closed). It is client-go's helper up
// to v0.32, kept for tests written against it.
func Pop(queue Queue) any {
	var result any
	_, _ = queue.Pop(func(obj any, _ bool) error {
		result = obj
		return nil
	})
	return result
}

// A FIFO is a Store, as in client-go up to v0.32.
var _ Store = (*FIFO)(nil)
