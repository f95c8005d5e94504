package deltafifo

// Add queues an Added delta for obj.
func (f *RealFIFO) Add(obj interface{}) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	return f.appendLocked(Added, obj, true)
}

// Update queues an Updated delta for obj.
func (f *RealFIFO) Update(obj interface{}) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	return f.appendLocked(Updated, obj, true)
}

// Delete queues a Deleted delta for obj. Unlike DeltaFIFO, it always does:
// the queue does not check whether the object is known.
func (f *RealFIFO) Delete(obj interface{}) error {
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
	f.items = append(f.items, Delta{Type: Bookmark, Object: BookmarkInfo{ResourceVersion: resourceVersion}})
	f.cond.Broadcast()
	return nil
}

// appendLocked queues a delta of type t for obj. The object must have a
// key. It is transformed first when transform is true and obj is not a
// DeletedFinalStateUnknown.
func (f *RealFIFO) appendLocked(t DeltaType, obj interface{}, transform bool) error {
	if _, err := f.keyOf(obj); err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	if transform && f.transformer != nil {
		if _, tomb := obj.(DeletedFinalStateUnknown); !tomb {
			var err error
			if obj, err = f.transformer(obj); err != nil {
				return err
			}
		}
	}
	f.pushLocked(Delta{Type: t, Object: obj})
	return nil
}

// pushLocked appends d, wakes Pop and updates the queue-length metric.
func (f *RealFIFO) pushLocked(d Delta) {
	f.items = append(f.items, d)
	f.cond.Broadcast()
	f.metrics.QueuedItems.Set(float64(len(f.items)))
}
