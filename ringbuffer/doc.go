// Package ringbuffer provides Ring, a generic FIFO ring buffer that grows
// without bound and gives memory back once it drains.
//
// Ring keeps the growth rule of client-go's listener buffer
// (k8s.io/utils/buffer.TypedRingGrowing): a full ring doubles (an empty zero
// value starts at 16 slots), the pending items are copied in order to the
// start of the new storage, and every slot is zeroed when it is read so that
// the ring never keeps a consumed value alive. Unlike client-go's ring it also
// shrinks once drained, with hysteresis so that recurring bursts keep their
// capacity; see [Ring.ReadOne].
//
// A Ring is plain single-goroutine code: it is not safe for concurrent use.
package ringbuffer
