package deltafifo

import (
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// Replace records a relist.
//
// With AtomicEvents it queues one ReplacedAll delta whose ReplacedAllInfo
// holds resourceVersion and the transformed objects; the objects are not
// keyed.
//
// Otherwise it queues, in this order: a Deleted delta with a
// DeletedFinalStateUnknown (holding the last queued object) for every
// queued key missing from newItems whose last queued delta is not already a
// deletion, in first-queued order; a Deleted tombstone (holding the known
// object, or nil if it cannot be read) for every KnownObjects key that is
// neither queued nor in newItems, in ListKeys order; and a Replaced delta
// for each of newItems, in order.
//
// The first Replace that comes before any Add, Update or Delete sets the
// initial population to the number of deltas queued at its end, including
// any queued before it. On error nothing of that counts: the queue stays
// unpopulated, and deltas queued before the failing one stay queued.
func (f *RealFIFO) Replace(newItems []any, resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var err error
	if f.atomic {
		err = f.replaceAllLocked(newItems, resourceVersion)
	} else {
		err = f.reconcileLocked(newItems)
	}
	if err != nil {
		return err
	}
	f.sync.populate(f.lenLocked())
	return nil
}

// replaceAllLocked queues one ReplacedAll delta.
func (f *RealFIFO) replaceAllLocked(objs []any, resourceVersion string) error {
	if f.transformer != nil {
		out := make([]any, len(objs))
		for i, obj := range objs {
			t, err := f.transformer(obj)
			if err != nil {
				return err
			}
			out[i] = t
		}
		objs = out
	}
	f.pushLocked(Delta{Type: ReplacedAll, Object: ReplacedAllInfo{ResourceVersion: resourceVersion, Objects: objs}})
	return nil
}

// reconcileLocked queues the tombstones and Replaced deltas of a
// non-atomic Replace; see Replace for the order.
func (f *RealFIFO) reconcileLocked(newItems []any) error {
	listed := make(map[string]struct{}, len(newItems))
	for _, obj := range newItems {
		key, err := f.keyOf(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		listed[key] = struct{}{}
	}

	// The last queued delta of each key, and the keys in first-queued order.
	var order []string
	last := map[string]Delta{}
	for _, d := range f.items[f.head:] {
		key, err := f.keyOf(d.Object)
		if err != nil {
			return KeyError{Obj: d.Object, Err: err}
		}
		if _, seen := last[key]; !seen {
			order = append(order, key)
		}
		last[key] = d
	}

	for _, key := range order {
		if _, ok := listed[key]; ok {
			continue
		}
		d := last[key]
		if d.Type == Deleted {
			continue
		}
		if err := f.appendLocked(Deleted, DeletedFinalStateUnknown{Key: key, Obj: d.Object}, false); err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
	}

	for _, key := range f.known.ListKeys() {
		if _, ok := listed[key]; ok {
			continue
		}
		if _, queued := last[key]; queued {
			continue
		}
		obj, exists, err := f.known.GetByKey(key)
		switch {
		case err != nil:
			obj = nil
			utilruntime.HandleErrorWithLogger(f.logger, err, "Error during lookup, placing DeleteFinalStateUnknown marker without object", "key", key)
		case !exists:
			obj = nil
			utilruntime.HandleErrorWithLogger(f.logger, nil, "Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object", "key", key)
		}
		if err := f.appendLocked(Deleted, DeletedFinalStateUnknown{Key: key, Obj: obj}, false); err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
	}

	for _, obj := range newItems {
		if err := f.appendLocked(Replaced, obj, true); err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
	}
	return nil
}

// Resync asks for every known object to be processed again.
//
// With AtomicEvents it queues one SyncAll delta. Otherwise it queues a Sync
// delta, carrying the known object untransformed, for every KnownObjects
// key that has no delta queued, in ListKeys order; keys that KnownObjects
// cannot return are reported and skipped.
func (f *RealFIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.atomic {
		f.pushLocked(Delta{Type: SyncAll, Object: SyncAllInfo{}})
		return nil
	}
	if f.known == nil {
		return nil
	}
	queued := make(map[string]struct{}, f.lenLocked())
	for _, d := range f.items[f.head:] {
		key, err := f.keyOf(d.Object)
		if err != nil {
			return KeyError{Obj: d, Err: err}
		}
		queued[key] = struct{}{}
	}
	for _, key := range f.known.ListKeys() {
		if _, ok := queued[key]; ok {
			continue
		}
		obj, exists, lookupErr := f.known.GetByKey(key)
		if lookupErr != nil {
			utilruntime.HandleErrorWithLogger(f.logger, lookupErr, "Unable to queue object for sync", "key", key)
			continue
		}
		if !exists {
			utilruntime.HandleErrorWithLogger(f.logger, nil, "Key does not exist in known objects store, unable to queue object for sync", "key", key)
			continue
		}
		if err := f.appendLocked(Sync, obj, false); err != nil {
			// client-go wraps the (nil) lookup error here rather than err;
			// the text is kept identical to client-go's.
			return fmt.Errorf("couldn't queue object: %w", lookupErr)
		}
	}
	return nil
}
