package informer

import (
	"fmt"

	"k8s.io/klog/v2"
)

// processKeyedBatch is processDeltasInBatch for a batch whose keys the
// queue gives (keys[i] is the key of deltas[i]; nil when it has not got
// them all). With the keys and the informer's own store, the batch is
// written under one store lock without computing any key, and the
// handlers are called afterwards, in order, for the writes that were
// applied, exactly as client-go's Get-then-Transaction batch does. results
// is scratch space the caller reuses from batch to batch; it is cleared
// before returning so that it keeps no object alive.
func processKeyedBatch(logger klog.Logger, handler ResourceEventHandler, store Store, keys []string, deltas []Delta, isInInitialList bool, results *[]batchResult) error {
	c, own := store.(*cache)
	if !own || keys == nil {
		return processDeltasInBatch(logger, handler, store, deltas, isInInitialList)
	}
	for _, d := range deltas {
		switch d.Type {
		case Sync, Replaced, Added, Updated, Deleted:
		default:
			return fmt.Errorf("Delta type %s is not supported in batch processing", d.Type)
		}
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
			reportRefusal(logger, store, r.err)
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
