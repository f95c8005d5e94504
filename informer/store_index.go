package informer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
)

// storeIndex holds the indices of a threadSafeMap. It is plain data: the
// owner's lock guards every field and method.
//
// A write is done in two steps so that an index function error cannot
// leave the indices half updated: plan computes every value (and may fail),
// apply changes the maps (and cannot fail).
type storeIndex struct {
	// indexers is copy-on-write: AddIndexers installs a new map and never
	// modifies one that was handed out by GetIndexers.
	indexers Indexers
	// gen counts the changes of indexers, so that work done outside the
	// lock with an older set can be detected and redone.
	gen     uint64
	indices Indices
	// scratch is reused by plan to avoid an allocation per write.
	scratch []indexChange
}

// indexChange is the planned change of one index for one key.
type indexChange struct {
	name     string
	old, new []string
	// oldUnknown is set when the index function failed on the old object;
	// apply then finds the key's old values by scanning the index.
	oldUnknown bool
}

// empty reports whether there is no index to maintain.
func (s *storeIndex) empty() bool { return len(s.indexers) == 0 }

// plan computes, for every index, the values of key's old and new object.
// A nil object has no values. It fails only if an index function fails on
// newObj; the result is valid until the next call.
func (s *storeIndex) plan(key string, oldObj, newObj any) ([]indexChange, error) {
	changes := s.scratch[:0]
	for name, fn := range s.indexers {
		c := indexChange{name: name}
		if newObj != nil {
			values, err := fn(newObj)
			if err != nil {
				clear(changes)
				s.scratch = changes[:0]
				return nil, &indexRefusal{key: key, index: name, err: err}
			}
			c.new = values
		}
		if oldObj != nil {
			values, err := fn(oldObj)
			c.old, c.oldUnknown = values, err != nil
		}
		changes = append(changes, c)
	}
	s.scratch = changes
	return changes, nil
}

// apply makes the changes computed by plan.
func (s *storeIndex) apply(key string, changes []indexChange) {
	for i := range changes {
		c := &changes[i]
		idx := s.indices[c.name]
		if idx == nil {
			idx = index{}
			s.indices[c.name] = idx
		}
		// The common case: one value, unchanged.
		if !c.oldUnknown && len(c.old) == 1 && len(c.new) == 1 && c.old[0] == c.new[0] {
			continue
		}
		if c.oldUnknown {
			for value, set := range idx {
				removeKey(idx, value, set, key)
			}
		} else {
			for _, value := range c.old {
				removeKey(idx, value, idx[value], key)
			}
		}
		for _, value := range c.new {
			set := idx[value]
			if set == nil {
				set = sets.New[string]()
				idx[value] = set
			}
			set.Insert(key)
		}
	}
	clear(changes)
}

// removeKey removes key from the set of value, and drops the set once it
// is empty, so that short-lived values do not leak empty sets.
func removeKey(idx index, value string, set sets.Set[string], key string) {
	if set == nil {
		return
	}
	set.Delete(key)
	if set.Len() == 0 {
		delete(idx, value)
	}
}

// buildIndices computes the indices of items for the given index
// functions. It does not touch s and needs no lock of its own. When index
// functions refuse some items it returns indexRefusals, one per refused
// key: an item is given to the index functions until one refuses it, so
// that each refusal is one failing call.
func buildIndices(items map[string]any, indexers Indexers) (Indices, error) {
	out := make(Indices, len(indexers))
	var refused indexRefusals
	var refusedKeys map[string]bool
	for name, fn := range indexers {
		idx := index{}
		for key, obj := range items {
			if obj == nil || refusedKeys[key] {
				continue
			}
			values, err := fn(obj)
			if err != nil {
				refused = append(refused, &indexRefusal{key: key, index: name, err: err})
				if refusedKeys == nil {
					refusedKeys = map[string]bool{}
				}
				refusedKeys[key] = true
				continue
			}
			for _, value := range values {
				set := idx[value]
				if set == nil {
					set = sets.New[string]()
					idx[value] = set
				}
				set.Insert(key)
			}
		}
		out[name] = idx
	}
	if refused != nil {
		return nil, refused
	}
	return out, nil
}

// keysFor returns the keys whose values in the named index intersect
// values. The result may be shared with the index: read it under the lock.
func (s *storeIndex) keysFor(indexName string, values []string) sets.Set[string] {
	idx := s.indices[indexName]
	if len(values) == 1 {
		return idx[values[0]]
	}
	keys := sets.New[string]()
	for _, value := range values {
		for key := range idx[value] {
			keys.Insert(key)
		}
	}
	return keys
}

// keysByValue returns the keys with the given value in the named index, or
// an error when there is no such index. The set is shared with the index.
func (s *storeIndex) keysByValue(indexName, value string) (sets.Set[string], error) {
	if _, ok := s.indexers[indexName]; !ok {
		return nil, noIndexError(indexName)
	}
	return s.indices[indexName][value], nil
}

// values returns every value of the named index.
func (s *storeIndex) values(indexName string) []string {
	idx := s.indices[indexName]
	out := make([]string, 0, len(idx))
	for value := range idx {
		out = append(out, value)
	}
	return out
}

// noIndexError is client-go's error for an unknown index name.
func noIndexError(indexName string) error {
	return fmt.Errorf("Index with name %s does not exist", indexName) //nolint:staticcheck // client-go's wording
}

// indexRefusal is the error of an index function that refused the object
// stored under key.
type indexRefusal struct {
	key, index string
	err        error
}

func (e *indexRefusal) Error() string {
	return fmt.Sprintf("unable to calculate an index entry for key %q on index %q: %v", e.key, e.index, e.err)
}

func (e *indexRefusal) Unwrap() error { return e.err }

// indexRefusals are the refusals of one replace, one per refused key. Its
// message is the first refusal's; errors.As finds each *indexRefusal.
type indexRefusals []*indexRefusal

func (e indexRefusals) Error() string {
	if len(e) == 1 {
		return e[0].Error()
	}
	return fmt.Sprintf("%v (and %d more refused objects)", e[0], len(e)-1)
}

func (e indexRefusals) Unwrap() []error {
	out := make([]error, len(e))
	for i, r := range e {
		out[i] = r
	}
	return out
}
