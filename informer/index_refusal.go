package informer

import (
	"errors"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// reportRefusal reports, if err is an index function's refusal, that the
// write to store was dropped, with the key and the index, and returns
// true. The informer then goes on with the next delta: only the refused
// write is lost. The refusal is also counted and remembered by store, if
// it is a cache (see refusalLog).
func reportRefusal(logger klog.Logger, store Store, err error) bool {
	var r *indexRefusal
	if !errors.As(err, &r) {
		return false
	}
	utilruntime.HandleErrorWithLogger(logger, r.err, "Index function refused an object, its write was dropped", "key", r.key, "index", r.index)
	if c, ok := store.(*cache); ok {
		c.refusals.note(r)
	}
	return true
}

// replaceRefusing is store.Replace(objs, rv) for the informer's own cache
// that, when index functions refuse some objects, reports each refusal and
// replaces with the others; for a refused key the object stored before, if
// any and accepted, is kept. It returns the listed objects that were
// stored, in list order, which are the ones the handlers are told about,
// and, when some were refused, which (refused[i] for objs[i]). The refused
// objects are those the failed replace names: an index function is not
// asked about them again, so each refusal is one failing call of it.
func replaceRefusing(logger klog.Logger, store Store, objs []any, rv string) (kept []any, refused []bool, err error) {
	err = store.Replace(objs, rv)
	c, ok := store.(*cache)
	var r *indexRefusal
	if err == nil || !ok || !errors.As(err, &r) {
		return objs, nil, err
	}
	byKey := map[string]*indexRefusal{r.key: r}
	var all indexRefusals
	if errors.As(err, &all) {
		for _, r := range all {
			byKey[r.key] = r
		}
	}
	indexers := c.storage.GetIndexers()
	accepts := func(obj any) bool {
		for _, fn := range indexers {
			if _, err := fn(obj); err != nil {
				return false
			}
		}
		return true
	}
	keys := make([]string, len(objs))
	last := make(map[string]int, len(objs)) // the replace stored a key's last object
	for i, obj := range objs {
		key, err := c.keyOf(obj)
		if err != nil {
			return nil, nil, err
		}
		keys[i], last[key] = key, i
	}
	kept = make([]any, 0, len(objs))
	refused = make([]bool, len(objs))
	write := make([]any, 0, len(objs))
	for i, obj := range objs {
		key := keys[i]
		if r, ok := byKey[key]; ok {
			// A key listed twice is stored as its last object: the
			// earlier ones are superseded by the refused one.
			refused[i] = true
			if last[key] != i {
				continue
			}
			reportRefusal(logger, store, r)
			if old, exists := c.storage.Get(key); exists && accepts(old) {
				write = append(write, old)
			}
			continue
		}
		kept = append(kept, obj)
		write = append(write, obj)
	}
	return kept, refused, store.Replace(write, rv)
}
