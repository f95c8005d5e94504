package deltafifo

// Add queues an Added delta for obj.
func (f *DeltaFIFO) Add(obj any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	return f.queueLocked(Added, Added, obj)
}

// Update queues an Updated delta for obj.
func (f *DeltaFIFO) Update(obj any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	return f.queueLocked(Updated, Updated, obj)
}

// Delete queues a Deleted delta for obj, unless the queue has no reason to
// think the object exists. Without KnownObjects that is when nothing is
// queued for its key; with KnownObjects, when nothing is queued and
// KnownObjects reports, without error, that it does not have the key. (The
// deletion may already have been reported by a Replace.)
func (f *DeltaFIFO) Delete(obj any) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	e, _ := f.entryLocked(key)
	queued := e != nil
	if f.known == nil {
		if !queued {
			return nil
		}
	} else {
		// KnownObjects is consulted even when the key is queued, as
		// client-go does, so a KnownObjects sees the same calls.
		_, exists, err := f.known.GetByKey(key)
		if err == nil && !exists && !queued {
			return nil
		}
	}
	_, err = f.queueKeyLocked(key, Deleted, Deleted, obj)
	return err
}

// queueLocked appends a delta of type emit for obj to its key's Deltas and
// queues the key if it was not queued. as is the operation that produced
// it: obj is transformed first unless as is Sync or obj is a
// DeletedFinalStateUnknown (those objects were transformed on their way
// in). Replace passes as=Replaced even when it emits Sync, so a relisted
// object is transformed.
func (f *DeltaFIFO) queueLocked(emit, as DeltaType, obj any) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	_, err = f.queueKeyLocked(key, emit, as, obj)
	return err
}

// queueKeyLocked is queueLocked for an object whose key is already known.
// It reports whether the key was already queued.
func (f *DeltaFIFO) queueKeyLocked(key string, emit, as DeltaType, obj any) (queued bool, err error) {
	if f.transformer != nil && as != Sync {
		if _, tomb := AsDeletedFinalStateUnknown(obj); !tomb {
			if obj, err = f.transformer(obj); err != nil {
				return false, err
			}
		}
	}
	e, stale := f.entryLocked(key)
	queued = e != nil
	if queued {
		e.deltas = collapseDeletions(append(e.deltas, Delta{Type: emit, Object: obj}))
	} else {
		f.pushLocked(key, f.newDeltasLocked(Delta{Type: emit, Object: obj}), stale)
	}
	f.cond.Broadcast()
	return queued, nil
}

// collapseDeletions merges the last two deltas of d when both are
// deletions, keeping the one that carries more information: the older one,
// unless the older one is only a DeletedFinalStateUnknown. Only the last
// two deltas are ever compared.
func collapseDeletions(d Deltas) Deltas {
	n := len(d)
	if n < 2 || d[n-1].Type != Deleted || d[n-2].Type != Deleted {
		return d
	}
	if _, tomb := AsDeletedFinalStateUnknown(d[n-2].Object); tomb {
		d[n-2] = d[n-1]
	}
	d[n-1] = Delta{}
	return d[:n-1]
}

// deltasChunk is how many one-delta Deltas a large Replace allocates at
// once. A consumer that keeps a popped Deltas (Pop's result) keeps the
// others of its chunk reachable too, so the chunk is kept small.
const deltasChunk = 16

// newDeltasLocked returns a new Deltas holding d only. During a large
// Replace it is cut from a chunk (length and capacity 1: an append copies
// it out), which saves an allocation per listed key.
func (f *DeltaFIFO) newDeltasLocked(d Delta) Deltas {
	if !f.chunked {
		return Deltas{d}
	}
	if len(f.spare) == 0 {
		f.spare = make(Deltas, deltasChunk)
	}
	out := f.spare[:1:1]
	f.spare = f.spare[1:]
	out[0] = d
	return out
}
