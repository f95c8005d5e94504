// Package queueaccess is how the informer reaches the parts of package
// deltafifo's queues that are protocol between fanout's own packages, not
// API: the keyed pop, which hands the consumer the keys the queue computed
// when it queued the deltas so that it does not compute them again
// (client-go's queues have none), and a length read that never waits for
// the queue's lock (for the informer's statistics). Package deltafifo
// registers them when it is initialised.
package queueaccess

// Popped is what a keyed pop hands its consumer: the deltas (of type D,
// deltafifo.Delta) it removed from the queue, with their keys.
type Popped[D any] struct {
	// Deltas are the popped deltas, oldest first. The slice is valid only
	// during the call: the queue may reuse it afterwards.
	Deltas []D
	// Keys are the deltas' keys: in a batch, Keys[i] is the key of
	// Deltas[i]; otherwise Keys[0] is the key of every delta. Keys is nil
	// when the queue has no key for one of them (the unkeyed deltas of a
	// RealFIFO with AtomicEvents, or a delta whose transformed object has
	// no key): the consumer must then work the keys out itself. Valid only
	// during the call.
	Keys []string
	// Batch is true for deltas of distinct keys popped together, to be
	// applied as one batch.
	Batch bool
	// IsInInitialList is true when the deltas belong to the initial
	// population.
	IsInInitialList bool
}

// Func processes what a keyed pop removed.
type Func[D any] func(Popped[D]) error

// Pop pops one item (or, when batch is true and the queue batches, a
// batch of items of distinct keys) and hands it to process. It waits for
// an item, and returns the queue's closed error once the queue is closed
// and empty.
type Pop[D any] func(batch bool, process Func[D]) error

// Access is what the informer reaches of one queue.
type Access[D any] struct {
	// Pop is the queue's keyed pop.
	Pop Pop[D]
	// TryLen returns the queue's length, like Len, unless the queue's lock
	// is held (by the consumer's process call, say): then it reports false
	// at once instead of waiting, so that an observer never waits behind a
	// stalled consumer.
	TryLen func() (n int, ok bool)
}

// accessFor is the registered func(q any) (Access[D], bool).
var accessFor any

// Register sets how For reaches a queue: f returns its Access, and false
// for a queue it does not know. Package deltafifo calls it from init.
func Register[D any](f func(q any) (Access[D], bool)) { accessFor = f }

// For returns q's Access, and false when q is not one of deltafifo's
// queues.
func For[D any](q any) (Access[D], bool) {
	f, _ := accessFor.(func(q any) (Access[D], bool))
	if f == nil {
		return Access[D]{}, false
	}
	return f(q)
}
