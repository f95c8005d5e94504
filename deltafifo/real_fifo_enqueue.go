package deltafifo

// Add queues an Added delta for obj.
func (f *RealFIFO) Add(obj any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	return f.appendLocked(Added, obj, true)
}

// Update queues an Updated delta for obj.
func (f *RealFIFO) Update(obj any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	return f.appendLocked(Updated, obj, true)
}

// Delete queues a Deleted delta for obj. Unlike DeltaFIFO, it always does:
// the queue does not check whether the object is known.
func (f *RealFIFO) Delete(obj any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	return f.appendLocked(Deleted, obj, true)
}

// Bookmark queues a Bookmark delta carrying resourceVersion if the queue
// was built with EmitDeltaTypeBookmark, and otherwise does nothing. It does
// not count as populating the queue.
func (f *RealFIFO) Bookmark(resourceVersion string) error {
	if !f.emitBookmarks {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appendItemLocked(itemKey{}, Delta{Type: Bookmark, Object: BookmarkInfo{ResourceVersion: resourceVersion}})
	f.cond.Broadcast()
	return nil
}

// appendLocked queues a delta of type t for obj. The object must have a
// key. It is transformed first when transform is true and obj is not a
// DeletedFinalStateUnknown; the key kept with the delta is then the
// transformed object's, which is the one client-go computes when it pops
// it (if the transformed object has none, the delta is kept without key).
func (f *RealFIFO) appendLocked(t DeltaType, obj any, transform bool) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	if transform && f.transformer != nil {
		if _, tomb := AsDeletedFinalStateUnknown(obj); !tomb {
			if obj, err = f.transformer(obj); err != nil {
				return err
			}
			if key, err = f.keyOf(obj); err != nil {
				f.pushKeyedLocked(itemKey{}, Delta{Type: t, Object: obj})
				return nil
			}
		}
	}
	f.pushKeyedLocked(itemKey{key: key, ok: true}, Delta{Type: t, Object: obj})
	return nil
}

// pushLocked appends d, an unkeyed delta, wakes Pop and updates the
// queue-length metric.
func (f *RealFIFO) pushLocked(d Delta) { f.pushKeyedLocked(itemKey{}, d) }

// pushKeyedLocked appends d with its key, wakes Pop and updates the
// queue-length metric.
func (f *RealFIFO) pushKeyedLocked(key itemKey, d Delta) {
	f.appendItemLocked(key, d)
	f.cond.Broadcast()
	f.metrics.QueuedItems.Set(float64(f.lenLocked()))
}

// appendItemLocked appends d and its key, making room first when the
// slices are full (see makeRoomLocked). The two slices always have the same
// capacity: only makeRoomLocked allocates them, in pairs.
func (f *RealFIFO) appendItemLocked(key itemKey, d Delta) {
	if len(f.items) == cap(f.items) {
		f.makeRoomLocked()
	}
	f.items = append(f.items, d)
	f.keys = append(f.keys, key)
}

// minQueueCap is the capacity the queue's slices start at.
const minQueueCap = 8

// makeRoomLocked makes room for one more delta in full slices. When at
// least half of them are popped slots, the pending deltas move to the front;
// otherwise they move to new slices of twice the capacity. Each delta moves
// at most once per slice length appended, so an append stays O(1)
// amortised, and a growing queue allocates at most twice the slots it ends
// with. (Growing by append allocated about five times as many, most of the
// bytes a watch event cost the informer: append grows a large slice by a
// quarter and copies the popped slots along.)
func (f *RealFIFO) makeRoomLocked() {
	pending := len(f.items) - f.head
	if f.head > 0 && f.head >= len(f.items)/2 {
		n := copy(f.items, f.items[f.head:])
		copy(f.keys, f.keys[f.head:])
		clear(f.items[n:])
		clear(f.keys[n:])
		f.items, f.keys = f.items[:n], f.keys[:n]
		f.head = 0
		return
	}
	c := max(2*cap(f.items), minQueueCap)
	items, keys := make([]Delta, pending, c), make([]itemKey, pending, c)
	copy(items, f.items[f.head:])
	copy(keys, f.keys[f.head:])
	f.items, f.keys, f.head = items, keys, 0
}
