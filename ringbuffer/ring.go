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
}

// ReadOne removes and returns the oldest item; ok is false if the ring is
// empty. The slot it occupied is zeroed.
//
// Shrink rule: after the read, if the capacity is above the floor (the size
// given to New, or 16 for a zero value) and at most a quarter of it is in
// use, the capacity is halved, never below the floor. Halving at a quarter
// (not at a half) leaves the ring half full at most, so alternating writes
// and reads at a boundary cannot make it resize on every call, and the copy
// cost stays amortized O(1) per item.
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
	if floor := r.floor(); len(r.data) > floor && r.n <= len(r.data)/4 {
		r.resize(max(len(r.data)/2, floor))
	}
	return v, true
}

// Peek returns the oldest item without removing it; ok is false if the ring
// is empty.
func (r *Ring[T]) Peek() (v T, ok bool) {
	if r.n == 0 {
		return v, false
	}
	return r.data[r.beg], true
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
