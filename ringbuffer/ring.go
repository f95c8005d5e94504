package ringbuffer

import "iter"

// defaultSize is the capacity a ring created with size 0 takes on its first
// write, as in k8s.io/utils/buffer.
const defaultSize = 16

// Ring is a growing FIFO ring buffer of T. The zero value is an empty ring
// that allocates 16 slots on its first write. A Ring must not be copied after
// first use, and is not safe for concurrent use.
type Ring[T any] struct {
	data    []T // len(data) is the capacity; never nil after the first write
	beg     int // index of the oldest pending item
	n       int // number of pending items
	minSize int // capacity below which the ring never shrinks

	// Hysteresis: a cycle runs from one moment the ring is empty to the
	// next. peak is the most items pending in the current cycle, prevPeak
	// in the previous one. The ring does not shrink below what the
	// previous cycle needed, so a burst that recurs finds its capacity.
	peak, prevPeak int
}

// New returns an empty ring with room for initialSize items before it grows.
// A negative size is treated as 0.
func New[T any](initialSize int) *Ring[T] {
	initialSize = max(initialSize, 0)
	return &Ring[T]{data: make([]T, initialSize), minSize: initialSize}
}

// Len returns the number of pending (written but not yet read) items.
func (r *Ring[T]) Len() int { return r.n }

// Cap returns the number of items the ring holds before it must grow.
func (r *Ring[T]) Cap() int { return len(r.data) }

// WriteOne appends v. If the ring is full it first doubles its capacity
// (16 if it had none), copying the pending items in order.
func (r *Ring[T]) WriteOne(v T) {
	if r.n == len(r.data) {
		newSize := 2 * len(r.data)
		if newSize == 0 {
			newSize = defaultSize
		}
		r.resize(newSize)
	}
	r.data[r.index(r.n)] = v
	r.n++
	if r.n > r.peak {
		r.peak = r.n
	}
}

// ReadOne removes and returns the oldest item; ok is false if the ring is
// empty. The slot it occupied is zeroed.
//
// Shrink rule: after the read, if the capacity is above the floor (the size
// given to New, or 16 for a zero value), at most a quarter of it is in use,
// and half of it would have held the previous cycle's peak, the capacity is
// halved, never below the floor. A cycle runs from one moment the ring is
// empty to the next; when a read empties the ring, its peak becomes the
// previous peak and the (now empty) ring shrinks at once as far as that rule
// allows.
//
// Halving at a quarter (not at a half) leaves the ring half full at most, so
// alternating writes and reads at a boundary cannot make it resize on every
// call, and the copy cost stays amortized O(1) per item. The previous-peak
// condition is the hysteresis: a burst drains back to the floor the first
// time, but a ring whose previous cycle needed the capacity keeps it, so
// bursts of a similar size that recur reuse it instead of growing and
// shrinking each time; the first cycle with a smaller peak gives it back.
func (r *Ring[T]) ReadOne() (v T, ok bool) {
	if r.n == 0 {
		return v, false
	}
	var zero T
	v = r.data[r.beg]
	r.data[r.beg] = zero // do not keep the consumed value alive
	r.beg++
	if r.beg == len(r.data) {
		r.beg = 0
	}
	r.n--
	if r.n == 0 {
		r.prevPeak, r.peak = r.peak, 0
		r.beg = 0
		if size := r.shrunkSize(); size != len(r.data) {
			r.data = make([]T, size)
		}
		return v, true
	}
	if r.n <= len(r.data)/4 && r.prevPeak <= len(r.data)/2 && len(r.data) > r.floor() {
		r.resize(max(len(r.data)/2, r.floor()))
	}
	return v, true
}

// shrunkSize is the capacity an empty ring shrinks to: halved while above
// the floor and while the half would have held the previous cycle's peak.
func (r *Ring[T]) shrunkSize() int {
	size, floor := len(r.data), r.floor()
	for size > floor && r.prevPeak <= size/2 {
		size = max(size/2, floor)
	}
	return size
}

// Peek returns the oldest item without removing it; ok is false if the ring
// is empty.
func (r *Ring[T]) Peek() (v T, ok bool) {
	if r.n == 0 {
		return v, false
	}
	return r.data[r.beg], true
}

// Front returns a pointer to the oldest item's slot, or nil if the ring is
// empty. It is valid until the next WriteOne or ReadOne, and lets the caller
// change the oldest item in place.
func (r *Ring[T]) Front() *T {
	if r.n == 0 {
		return nil
	}
	return &r.data[r.beg]
}

// Back returns a pointer to the newest item's slot, or nil if the ring is
// empty. It is valid until the next WriteOne or ReadOne, and lets the caller
// change the newest item in place.
func (r *Ring[T]) Back() *T {
	if r.n == 0 {
		return nil
	}
	return &r.data[r.index(r.n-1)]
}

// All returns an iterator over the pending items, oldest first. The ring
// must not be modified while the iteration runs.
func (r *Ring[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for i := range r.n {
			if !yield(r.data[r.index(i)]) {
				return
			}
		}
	}
}

// index maps the i-th pending item to its slot in data.
func (r *Ring[T]) index(i int) int {
	j := r.beg + i
	if j >= len(r.data) {
		j -= len(r.data)
	}
	return j
}

// floor is the capacity the ring does not shrink below.
func (r *Ring[T]) floor() int {
	if r.minSize > 0 {
		return r.minSize
	}
	return defaultSize
}

// resize moves the pending items, in order, to the start of a new array of
// the given size, which must be at least r.n.
func (r *Ring[T]) resize(size int) {
	data := make([]T, size)
	if end := r.beg + r.n; end <= len(r.data) {
		copy(data, r.data[r.beg:end])
	} else {
		k := copy(data, r.data[r.beg:])
		copy(data[k:], r.data[:end-len(r.data)])
	}
	r.data = data
	r.beg = 0
}
