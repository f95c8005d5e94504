package deltafifo

// shrinkAbove is the number of keys above which the queue's map and slice
// are dropped, rather than kept for reuse, once they drain: a Go map keeps
// the size it grew to, and an initial list of 100k objects would otherwise
// pin ~100 bytes per object for the life of the informer. It is also the
// index size above which a pop leaves its key in the index (see popLocked).
const shrinkAbove = 4096

// queueEntry is one queued key with its pending Deltas (never empty).
type queueEntry struct {
	key    string
	deltas Deltas
}

// entryLocked returns the queue entry of key, or nil if key has nothing
// queued. stale reports that the index still held key for an entry that
// was popped.
func (f *DeltaFIFO) entryLocked(key string) (e *queueEntry, stale bool) {
	seq, ok := f.index[key]
	if !ok {
		return nil, false
	}
	i := seq - f.base
	if i < f.head {
		return nil, true
	}
	return &f.queue[i], false
}

// pushLocked appends key, with nothing queued, and its Deltas to the queue.
// The popped slots at the front are reused, by moving the pending entries
// down, when the slice is full and at least half of it has been popped;
// each entry is moved at most once per slice length appended, so a push
// stays O(1) amortised.
func (f *DeltaFIFO) pushLocked(key string, deltas Deltas, stale bool) {
	if len(f.queue) == cap(f.queue) && f.head > 0 && f.head >= len(f.queue)/2 {
		n := copy(f.queue, f.queue[f.head:])
		clear(f.queue[n:])
		f.queue = f.queue[:n]
		f.base += f.head
		f.head = 0
	}
	if stale {
		f.stale--
	}
	f.index[key] = f.base + len(f.queue)
	f.queue = append(f.queue, queueEntry{key: key, deltas: deltas})
	if n := len(f.index); n > f.indexPeak {
		f.indexPeak = n
	}
}

// popLocked removes the oldest entry from the queue and returns its key and
// Deltas. The queue must not be empty.
//
// A large index keeps the popped key (stale: its sequence number is below
// the head's, which entryLocked checks), which saves a map operation per
// pop while a large list drains; the index is dropped once the queue
// drains, or rebuilt from the pending entries once the stale keys
// outnumber them fourfold (a large list that is nearly drained is not
// worth rebuilding for), so it stays within a constant factor of the
// queue's size and each pop stays O(1) amortised. A small index deletes the key at once.
func (f *DeltaFIFO) popLocked() (string, Deltas) {
	e := f.queue[f.head]
	f.queue[f.head] = queueEntry{}
	f.head++
	if len(f.index) > shrinkAbove {
		f.stale++
	} else {
		delete(f.index, e.key)
	}
	pending := len(f.queue) - f.head
	switch {
	case pending == 0:
		// Drained: start again at the front, or drop a large slice.
		f.base += len(f.queue)
		f.head = 0
		if cap(f.queue) > shrinkAbove {
			f.queue = nil
		} else {
			f.queue = f.queue[:0]
		}
		if f.stale > 0 || f.indexPeak > shrinkAbove {
			f.index = map[string]int{}
			f.indexPeak = 0
			f.stale = 0
		}
	case f.stale > shrinkAbove && f.stale > 4*pending:
		f.rebuildIndexLocked()
	}
	return e.key, e.deltas
}

// rebuildIndexLocked replaces the index with one of the pending keys only.
func (f *DeltaFIFO) rebuildIndexLocked() {
	pending := f.queue[f.head:]
	f.index = make(map[string]int, len(pending))
	for i := range pending {
		f.index[pending[i].key] = f.base + f.head + i
	}
	f.indexPeak = len(pending)
	f.stale = 0
}

// reserveLocked prepares an empty queue for n keys, so that a large
// Replace allocates its map and slice once instead of growing them step by
// step. It does nothing for a small n, a map already that large, or a
// queue that holds keys.
func (f *DeltaFIFO) reserveLocked(n int) {
	if len(f.queue) != f.head || n < 64 || n <= f.indexPeak {
		return
	}
	f.index = make(map[string]int, n)
	f.indexPeak = n
	f.stale = 0
	if cap(f.queue) < n {
		f.base += len(f.queue)
		f.queue = make([]queueEntry, 0, n)
		f.head = 0
	}
}
