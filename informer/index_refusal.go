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
// and, when some were refused, which (refused[i] for objs[i]).
func replaceRefusing(logger klog.Logger, store Store, objs []any, rv string) (kept []any, refused []bool, err error) {
	err = store.Replace(objs, rv)
	c, ok := store.(*cache)
	var r *indexRefusal
	if err == nil || !ok || !errors.As(err, &r) {
		return objs, nil, err
	}
	indexers := c.storage.GetIndexers()
	refuses := func(key string, obj any) error {
		for name, fn := range indexers {
			if _, err := fn(obj); err != nil {
				return &indexRefusal{key: key, index: name, err: err}
			}
		}
		return nil
	}
	kept = make([]any, 0, len(objs))
	refused = make([]bool, len(objs))
	write := make([]any, 0, len(objs))
	for i, obj := range objs {
		key, prepared, err := c.prepare(obj)
		if err != nil {
			return nil, nil, err
		}
		if err := refuses(key, prepared); err != nil {
			refused[i] = true
			reportRefusal(logger, store, err)
			if old, exists := c.storage.Get(key); exists && refuses(key, old) == nil {
				write = append(write, old)
			}
			continue
		}
		kept = append(kept, obj)
		write = append(write, obj)
	}
	return kept, refused, store.Replace(write, rv)
}
