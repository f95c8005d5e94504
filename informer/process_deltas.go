package informer

import (
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
)

// process applies what one pop removed from a queue to store and then
// tells handler, oldest delta first: the store is always written before
// the handler is told of the change. Whether a change is an add or an
// update is decided by the store, not by the delta type.
//
// A batch (p.Batch: deltas of distinct keys) is written as one: under one
// store lock when the queue gave the keys and store is the informer's own,
// else in one Transaction when the store supports it, and the handlers of
// the writes that were applied are called afterwards, in order. Otherwise
// the deltas are written and told one by one; with the queue's key
// (p.Keys, which the caller vouches agrees with the store's key function)
// the informer's own store is written without computing it again.
// results is scratch space for keyed batches that the caller reuses from
// batch to batch, or nil.
func process(logger klog.Logger, handler ResourceEventHandler, store Store, p popped, results *[]batchResult) error {
	if p.Batch {
		return processBatch(logger, handler, store, p.Keys, p.Deltas, p.IsInInitialList, results)
	}
	c, _ := store.(*cache) // nil for another store
	var key string
	useKey := len(p.Keys) > 0 && c != nil // write c under the queue's key
	if useKey {
		key = p.Keys[0]
	}
	isInInitialList := p.IsInInitialList
	for _, d := range p.Deltas {
		obj := d.Object
		switch d.Type {
		case ReplacedAll:
			info, ok := obj.(ReplacedAllInfo)
			if !ok {
				return fmt.Errorf("ReplacedAll did not contain ReplacedAllInfo: %T", obj)
			}
			if err := processReplacedAll(logger, handler, store, info, isInInitialList); err != nil {
				return err
			}
		case SyncAll:
			if _, ok := obj.(SyncAllInfo); !ok {
				return fmt.Errorf("SyncAll did not contain SyncAllInfo: %T", obj)
			}
			for _, o := range store.List() {
				handler.OnUpdate(o, o)
			}
			// Like client-go, a SyncAll ends the processing of its Deltas.
			return nil
		case Sync, Replaced, Added, Updated:
			old, exists, err := upsert(store, c, key, useKey, obj)
			if reportRefusal(logger, store, err) {
				continue
			}
			if err != nil {
				return err
			}
			if exists {
				handler.OnUpdate(old, obj)
			} else {
				handler.OnAdd(obj, isInInitialList)
			}
		case Deleted:
			if useKey {
				c.storage.DeleteWithObject(key, obj)
			} else if err := store.Delete(obj); err != nil {
				return err
			}
			handler.OnDelete(obj)
		case Bookmark:
			info, ok := obj.(BookmarkInfo)
			if !ok {
				return fmt.Errorf("bookmark delta did not contain BookmarkInfo: %T", obj)
			}
			store.Bookmark(info.ResourceVersion)
		}
	}
	return nil
}

// upsert writes obj to store and returns what was stored under its key
// before: under key when useKey (then c, the informer's own cache, is
// store), with one key computation when c is not nil, and otherwise as
// client-go does, a Get followed by Update or Add. A Get error counts as
// nothing stored; an Add or Update error is returned.
func upsert(store Store, c *cache, key string, useKey bool, obj any) (old any, existed bool, err error) {
	switch {
	case useKey:
		return c.upsertKey(key, obj)
	case c != nil:
		return c.upsert(obj)
	}
	if old, exists, err := store.Get(obj); err == nil && exists {
		return old, true, store.Update(obj)
	}
	return nil, false, store.Add(obj)
}

// processBatch is process for a batch. A batch holds object deltas only
// (Added, Updated, Deleted, Replaced, Sync); another type is an error and
// nothing is written.
func processBatch(logger klog.Logger, handler ResourceEventHandler, store Store, keys []string, deltas []Delta, isInInitialList bool, results *[]batchResult) error {
	if c, own := store.(*cache); own && keys != nil {
		return processKeyedBatch(logger, handler, c, keys, deltas, isInInitialList, results)
	}
	txStore, ok := store.(TransactionStore)
	if !ok {
		var errs []error
		for i := range deltas {
			if err := process(logger, handler, store, popped{Deltas: deltas[i : i+1], IsInInitialList: isInInitialList}, nil); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("unexpected error when handling deltas: %v", errs)
		}
		return nil
	}
	txns := make([]Transaction, 0, len(deltas))
	notify := make([]func(), 0, len(deltas))
	for _, d := range deltas {
		obj := d.Object
		switch d.Type {
		case Sync, Replaced, Added, Updated:
			if old, exists, err := store.Get(obj); err == nil && exists {
				txns = append(txns, Transaction{Type: TransactionTypeUpdate, Object: obj})
				notify = append(notify, func() { handler.OnUpdate(old, obj) })
			} else {
				txns = append(txns, Transaction{Type: TransactionTypeAdd, Object: obj})
				notify = append(notify, func() { handler.OnAdd(obj, isInInitialList) })
			}
		case Deleted:
			txns = append(txns, Transaction{Type: TransactionTypeDelete, Object: obj})
			notify = append(notify, func() { handler.OnDelete(obj) })
		default:
			return fmt.Errorf("Delta type %s is not supported in batch processing", d.Type)
		}
	}
	if err := txStore.Transaction(txns...); err != nil {
		for _, i := range err.SuccessfulIndices {
			if i < len(notify) {
				notify[i]()
			}
		}
		return fmt.Errorf("not all items in the batch successfully processed: %s", err.Error())
	}
	for _, n := range notify {
		n()
	}
	return nil
}

// processKeyedBatch is processBatch for the informer's own store with the
// keys the queue gave (keys[i] is the key of deltas[i]): the batch is
// written under one store lock without computing any key, and the
// handlers are called afterwards, in order, for the writes that were
// applied, exactly as the Get-then-Transaction batch does. results is
// cleared before returning so that it keeps no object alive.
func processKeyedBatch(logger klog.Logger, handler ResourceEventHandler, c *cache, keys []string, deltas []Delta, isInInitialList bool, results *[]batchResult) error {
	for _, d := range deltas {
		switch d.Type {
		case Sync, Replaced, Added, Updated, Deleted:
		default:
			return fmt.Errorf("Delta type %s is not supported in batch processing", d.Type)
		}
	}
	if results == nil {
		results = new([]batchResult)
	}
	if cap(*results) < len(deltas) {
		*results = make([]batchResult, len(deltas))
	}
	res := (*results)[:len(deltas)]
	defer clear(res)
	c.storage.applyBatch(keys, deltas, res)
	for i, d := range deltas {
		r := &res[i]
		switch {
		case r.err != nil:
			reportRefusal(logger, c, r.err)
		case d.Type == Deleted:
			handler.OnDelete(d.Object)
		case r.existed:
			handler.OnUpdate(r.old, d.Object)
		default:
			handler.OnAdd(d.Object, isInInitialList)
		}
	}
	return batchError(res)
}

// processReplacedAll applies a whole relist: the store is replaced first,
// then OnDelete is called with a tombstone for every stored object missing
// from the list, then OnUpdate or OnAdd for each listed object in list
// order.
func processReplacedAll(logger klog.Logger, handler ResourceEventHandler, store Store, info ReplacedAllInfo, isInInitialList bool) error {
	if c, ok := store.(*cache); ok && c.standardKeys && c.transformer == nil && c.storage.len() == 0 {
		// Nothing stored: no tombstones, no updates, only adds. The
		// store keys each object once, with the key function used
		// below, and fails, unchanged, with the same KeyError on the
		// first object without a key.
		objs, _, err := replaceRefusing(logger, c, info.Objects, info.ResourceVersion)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			handler.OnAdd(obj, isInInitialList)
		}
		return nil
	}
	listed := sets.New[string]()
	for _, obj := range info.Objects {
		key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		listed.Insert(key)
	}
	var tombstones []DeletedFinalStateUnknown
	for _, key := range store.ListKeys() {
		if listed.Has(key) {
			continue
		}
		old, exists, err := store.GetByKey(key)
		if err != nil || !exists {
			old = nil
			utilruntime.HandleErrorWithLogger(logger, err, "Stored object vanished during a relist, delivering a tombstone without object", "key", key)
		}
		tombstones = append(tombstones, DeletedFinalStateUnknown{Key: key, Obj: old})
	}
	olds := make([]any, len(info.Objects))
	for i, obj := range info.Objects {
		if old, exists, err := store.Get(obj); err == nil && exists {
			olds[i] = old
		}
	}
	_, refused, err := replaceRefusing(logger, store, info.Objects, info.ResourceVersion)
	if err != nil {
		return err
	}
	for _, t := range tombstones {
		handler.OnDelete(t)
	}
	for i, obj := range info.Objects {
		if refused != nil && refused[i] {
			continue // refused
		}
		if olds[i] != nil {
			handler.OnUpdate(olds[i], obj)
		} else {
			handler.OnAdd(obj, isInInitialList)
		}
	}
	return nil
}
