package transform

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
)

// internMaxLen is the longest string InternLabelsAndAnnotations shares;
// longer values (such as kubectl's last-applied-configuration) are rarely
// repeated.
const internMaxLen = 256

// InternLabelsAndAnnotations returns a transform that makes the objects of
// a cache share one copy of each label and annotation key and value: the
// decoder allocates them afresh for every object, although the Pods of one
// workload carry the same labels and most annotations. Each object's label
// and annotation maps are rebuilt from the shared strings before the
// object enters the queue and store. Set it with SetTransform before Run;
// the returned function may be shared by several informers.
//
// The table keeps at most maxEntries strings (of up to 256 bytes each;
// maxEntries <= 0 means 100000); once it is full, strings not yet in it
// are kept as decoded. Trade-offs: every string in the table stays in
// memory while the transform is referenced, even after the objects that
// carried it are gone (a workload with ever-changing values, such as a
// label set to a timestamp, fills the table with strings it no longer
// needs); and rebuilding the maps costs CPU on every object received.
// BENCHMARKS.md ("Round two") measures the memory saved.
func InternLabelsAndAnnotations(maxEntries int) Func {
	if maxEntries <= 0 {
		maxEntries = 100000
	}
	t := &internTable{max: maxEntries, m: map[string]string{}}
	return func(obj any) (any, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return obj, nil
		}
		if l := m.GetLabels(); len(l) > 0 {
			m.SetLabels(t.internMap(l))
		}
		if a := m.GetAnnotations(); len(a) > 0 {
			m.SetAnnotations(t.internMap(a))
		}
		return obj, nil
	}
}

// internTable is a bounded string table.
type internTable struct {
	mu  sync.Mutex
	max int
	m   map[string]string
}

// internMap returns a copy of in with its keys and values shared.
func (t *internTable) internMap(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, v := range in {
		out[t.intern(k)] = t.intern(v)
	}
	return out
}

// intern returns the table's copy of s, adding s if there is room. The
// caller holds t.mu.
func (t *internTable) intern(s string) string {
	if len(s) > internMaxLen {
		return s
	}
	if c, ok := t.m[s]; ok {
		return c
	}
	if len(t.m) < t.max {
		t.m[s] = s
	}
	return s
}

// ChainTransforms returns a transform that applies fs in order, stopping
// at the first error.
func ChainTransforms(fs ...Func) Func {
	return func(obj any) (any, error) {
		var err error
		for _, f := range fs {
			if obj, err = f(obj); err != nil {
				return nil, err
			}
		}
		return obj, nil
	}
}
