package deltafifo

// Popped is what a keyed pop hands its consumer: the deltas it removed
// from the queue, with the keys the queue computed when they were queued,
// so that the consumer does not compute them again. It is a fanout
// addition, used by the informer; client-go's queues have no keyed pop.
type Popped struct {
	// Deltas are the popped deltas, oldest first. The slice is valid only
	// during the call: the queue may reuse it afterwards.
	Deltas []Delta
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

// PoppedFunc processes what a keyed pop removed.
type PoppedFunc func(Popped) error
