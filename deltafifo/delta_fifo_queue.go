package deltafifo

// shrinkAbove is the number of keys above which the queue's map and key
// slice are dropped, rather than kept for reuse, once they drain: a Go map
// keeps the size it grew to, and an initial list of 100k objects would
// otherwise pin ~100 bytes per object for the life of the informer.
const shrinkAbove = 4096

// pushLocked appends key to the queue. The popped slots at the front are
// reused, by moving the pending keys down, when the slice is full and at
// least half of it has been popped; each key is moved at most once per
// slice length appended, so a push stays O(1) amortised.
func (f *DeltaFIFO) pushLocked(key string) {
	if len(f.queue) == cap(f.queue) && f.head > 0 && f.head >= len(f.queue)/2 {
		n := copy(f.queue, f.queue[f.head:])
		clear(f.queue[n:])
		f.queue = f.queue[:n]
		f.head = 0
	}
	f.queue = append(f.queue, key)
}

// popLocked removes the oldest key from the queue and returns it with its
// Deltas, which are removed from items. The queue must not be empty.
func (f *DeltaFIFO) popLocked() (string, Deltas) {
	key := f.queue[f.head]
	f.queue[f.head] = ""
	f.head++
	if f.head == len(f.queue) {
		// Drained: start again at the front, or drop a large slice.
		f.head = 0
		if cap(f.queue) > shrinkAbove {
			f.queue = nil
		} else {
			f.queue = f.queue[:0]
		}
	}
	item := f.items[key]
	delete(f.items, key)
	if len(f.items) == 0 && f.itemsPeak > shrinkAbove {
		f.items = map[string]Deltas{}
		f.itemsPeak = 0
	}
	return key, item
}

// reserveLocked prepares an empty queue for n keys, so that a large
// Replace allocates its map and key slice once instead of growing them
// step by step. It does nothing for a small n, a map already that large,
// or a queue that holds keys.
func (f *DeltaFIFO) reserveLocked(n int) {
	if len(f.items) != 0 || n < 64 || n <= f.itemsPeak {
		return
	}
	f.items = make(map[string]Deltas, n)
	f.itemsPeak = n
	if cap(f.queue) < n {
		f.queue = make([]string, 0, n)
		f.head = 0
	}
}
