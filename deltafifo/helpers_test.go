package deltafifo

import (
	"errors"
	"sort"
	"testing"
)

// tobj is the test object: a name (its key) and a value.
type tobj struct {
	name string
	val  int
}

func o(name string, val int) tobj { return tobj{name: name, val: val} }

var errNoKey = errors.New("object has no name")

// tkey keys a tobj by name; anything else, or an empty name, is an error.
func tkey(obj any) (string, error) {
	t, ok := obj.(tobj)
	if !ok || t.name == "" {
		return "", errNoKey
	}
	return t.name, nil
}

// known is a KeyListerGetter over a map, with sorted keys. Keys listed in
// missing are listed but not found; keys in failing give an error.
type known struct {
	objs    map[string]any
	missing []string
	failing []string
}

func knownOf(objs ...tobj) *known {
	k := &known{objs: map[string]any{}}
	for _, obj := range objs {
		k.objs[obj.name] = obj
	}
	return k
}

var errLookup = errors.New("lookup failed")

func (k *known) ListKeys() []string {
	keys := append([]string(nil), k.missing...)
	keys = append(keys, k.failing...)
	for key := range k.objs {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

func (k *known) GetByKey(key string) (any, bool, error) {
	for _, f := range k.failing {
		if f == key {
			return nil, false, errLookup
		}
	}
	v, ok := k.objs[key]
	return v, ok, nil
}

// popper is what popAll needs of a queue.
type popper interface {
	Pop(PopProcessFunc) (any, error)
	Len() int
}

// popAll pops until the queue is empty and returns what was processed.
func popAll(t *testing.T, q popper) []Deltas {
	t.Helper()
	var out []Deltas
	for q.Len() > 0 {
		_, err := q.Pop(func(obj any, _ bool) error {
			out = append(out, obj.(Deltas))
			return nil
		})
		if err != nil {
			t.Fatalf("Pop: %v", err)
		}
	}
	return out
}

// tomb builds a tombstone delta.
func tomb(key string, obj any) Delta {
	return Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: obj}}
}

// countingTransform counts its calls and bumps val by 100. It refuses
// objects named "refuse".
type countingTransform struct{ calls int }

var errTransform = errors.New("transform refused")

func (c *countingTransform) fn(obj any) (any, error) {
	c.calls++
	t, ok := obj.(tobj)
	if !ok {
		return obj, nil
	}
	if t.name == "refuse" {
		return nil, errTransform
	}
	t.val += 100
	return t, nil
}
