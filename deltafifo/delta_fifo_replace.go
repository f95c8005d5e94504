package deltafifo

import (
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// Replace queues every object of list with a Replaced delta (Sync unless
// EmitDeltaTypeReplaced was set), and then a Deleted delta carrying a
// DeletedFinalStateUnknown for every key the queue knows of that is not in
// list: first the queued keys (the tombstone holds the newest queued
// object), then the keys of KnownObjects with nothing queued (the tombstone
// holds the known object, or nil if it cannot be read). The resource
// version is ignored.
//
// The first Replace that comes before any Add, Update or Delete sets the
// initial population: the number of distinct keys in list plus the
// tombstones queued. A key error or transform error stops Replace at that
// object; what was queued before stays queued.
func (f *DeltaFIFO) Replace(list []any, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()

	// before maps each key queued before this Replace to whether list
	// has it; the keys list adds are counted in added. Every listed key
	// is queued once the list is, so a key that is neither listed nor
	// queued before is not queued afterwards: that is how the loops below
	// tell listed keys apart without a set of all of them.
	var before map[string]bool
	if n := len(f.queue) - f.head; n > 0 {
		before = make(map[string]bool, n)
		for _, e := range f.queue[f.head:] {
			before[e.key] = false
		}
	}
	f.reserveLocked(len(list))
	if len(list) >= 64 {
		f.chunked = true
		defer func() { f.chunked, f.spare = false, nil }()
	}
	added := 0
	for _, obj := range list {
		key, err := f.KeyOf(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		queued, err := f.queueKeyLocked(key, f.replaceType, Replaced, obj)
		if err != nil {
			return fmt.Errorf("couldn't enqueue object: %v", err)
		}
		switch {
		case !queued:
			added++
		case before != nil:
			if _, ok := before[key]; ok {
				before[key] = true
			}
		}
	}

	listed := added
	tombstones := 0
	// The keys visited here were all queued before, so the order of the
	// map iteration does not change the order of the queue.
	for key, wasListed := range before {
		if wasListed {
			listed++
			continue
		}
		e, _ := f.entryLocked(key)
		last := e.deltas.Newest().Object
		if tomb, ok := AsDeletedFinalStateUnknown(last); ok {
			last = tomb.Obj
		}
		tombstones++
		if err := f.queueLocked(Deleted, Deleted, DeletedFinalStateUnknown{Key: key, Obj: last}); err != nil {
			return err
		}
	}

	if f.known != nil {
		for _, key := range f.known.ListKeys() {
			// Listed keys and keys queued before are queued now.
			if e, _ := f.entryLocked(key); e != nil {
				continue
			}
			last, exists, err := f.known.GetByKey(key)
			switch {
			case err != nil:
				last = nil
				utilruntime.HandleErrorWithLogger(f.logger, err, "Unexpected error during lookup, placing DeleteFinalStateUnknown marker without object", "key", key)
			case !exists:
				last = nil
				f.logger.Info("Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object", "key", key)
			}
			tombstones++
			if err := f.queueLocked(Deleted, Deleted, DeletedFinalStateUnknown{Key: key, Obj: last}); err != nil {
				return err
			}
		}
	}

	f.sync.populate(listed + tombstones)
	return nil
}

// Resync queues a Sync delta, carrying the known object untransformed, for
// every key of KnownObjects that has nothing queued. Without KnownObjects
// it does nothing. Keys that KnownObjects cannot return are logged and
// skipped.
func (f *DeltaFIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.known == nil {
		return nil
	}
	for _, k := range f.known.ListKeys() {
		if err := f.resyncKeyLocked(k); err != nil {
			return err
		}
	}
	return nil
}

// resyncKeyLocked queues a Sync for the known object stored under k, unless
// its key already has deltas queued (they are newer than the known object).
func (f *DeltaFIFO) resyncKeyLocked(k string) error {
	obj, exists, err := f.known.GetByKey(k)
	if err != nil {
		utilruntime.HandleErrorWithLogger(f.logger, err, "Unexpected error during lookup, unable to queue object for sync", "key", k)
		return nil
	}
	if !exists {
		f.logger.Info("Key does not exist in known objects store, unable to queue object for sync", "key", k)
		return nil
	}
	key, err := f.KeyOf(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	if e, _ := f.entryLocked(key); e != nil {
		return nil
	}
	if _, err := f.queueKeyLocked(key, Sync, Sync, obj); err != nil {
		return fmt.Errorf("couldn't queue object: %v", err)
	}
	return nil
}
