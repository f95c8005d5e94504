package deltafifo

// KeyedProcessFunc processes the deltas of one key popped together, given
// the key the queue computed for them when they were queued, so that the
// consumer does not compute it again. keyed is false, and key empty, when
// the queue has no key for them (the unkeyed deltas of a RealFIFO with
// AtomicEvents, or a delta whose transformed object has no key): the
// consumer must then work it out itself. deltas is valid only during the
// call: the queue may reuse it afterwards. It is a fanout addition, used by
// the informer; client-go's queues have no keyed pops.
type KeyedProcessFunc func(key string, keyed bool, deltas []Delta, isInInitialList bool) error

// KeyedProcessBatchFunc processes a batch of deltas popped together, each
// of a different key; keys[i] is the key of deltas[i], or keys is nil when
// the queue has no key for some of them. Both slices are valid only during
// the call. It is a fanout addition, as KeyedProcessFunc.
type KeyedProcessBatchFunc func(keys []string, deltas []Delta, isInInitialList bool) error
