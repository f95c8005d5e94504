package transform

import (
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ManagedFieldsPath is the path of metadata.managedFields, for DropFields.
var ManagedFieldsPath = []string{"metadata", "managedFields"}

// DropManagedFields returns a transform that clears metadata.managedFields
// of every object before it enters the informer's queue and store: the
// server-side-apply bookkeeping, often a third of a cached object, that
// few controllers read. Set it with SetTransform before Run.
//
// Trade-off: objects in the cache and given to handlers have no
// managedFields, so a controller that reads them (or that sends a cached
// object back in an Update, which would then send no managedFields) must
// not use it. BENCHMARKS.md ("Round two") measures the memory saved.
func DropManagedFields() Func {
	return DropFields(ManagedFieldsPath)
}

// DropFields returns a transform that removes the listed fields from
// every object before it enters the informer's queue and store. A path is
// the field's JSON names from the object's root, for example
// {"metadata", "managedFields"} or {"status", "conditions"}; a step into a
// map[string]string names a key, so {"metadata", "annotations",
// "kubectl.kubernetes.io/last-applied-configuration"} drops that
// annotation. A field is set to its zero value, a map entry deleted.
//
// Typed objects (structs with json tags, such as k8s.io/api types) and
// *unstructured.Unstructured are supported; a path that does not exist in
// an object's type, or that crosses a nil pointer, is skipped. The object
// is changed in place, as transforms may (they are given objects fresh
// from the decoder). Objects that are not Kubernetes objects, such as the
// tombstones of deletes the informer missed, pass through unchanged.
//
// Trade-off: the dropped fields are gone for every handler and lister of
// the informer, and an object sent back to the server from the cache
// lacks them.
func DropFields(paths ...[]string) Func {
	d := &fieldDropper{paths: make([][]string, len(paths))}
	for i, p := range paths {
		d.paths[i] = append([]string(nil), p...)
		if len(p) == 2 && p[0] == "metadata" && p[1] == "managedFields" {
			d.managedFields = true
		}
	}
	return d.transform
}

// fieldDropper is the state of a DropFields transform: the paths, and per
// object type how each path resolves (cached, read-mostly).
type fieldDropper struct {
	paths         [][]string
	managedFields bool
	resolved      sync.Map // reflect.Type -> []fieldRoute
}

// fieldRoute is a path resolved in one struct type: struct field indexes
// to follow (through pointers), then either the last field to zero or a
// map key to delete.
type fieldRoute struct {
	steps [][]int
	key   string // when not "", the last step is a map[string]string
}

func (d *fieldDropper) transform(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		for _, p := range d.paths {
			unstructured.RemoveNestedField(u.Object, p...)
		}
		return obj, nil
	}
	if len(d.paths) == 1 && d.managedFields {
		if m, err := meta.Accessor(obj); err == nil {
			m.SetManagedFields(nil)
		}
		return obj, nil
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return obj, nil
	}
	for _, r := range d.routes(v.Elem().Type()) {
		r.apply(v.Elem())
	}
	return obj, nil
}

// routes returns the paths resolved in struct type t.
func (d *fieldDropper) routes(t reflect.Type) []fieldRoute {
	if r, ok := d.resolved.Load(t); ok {
		return r.([]fieldRoute)
	}
	var out []fieldRoute
	for _, p := range d.paths {
		if r, ok := resolveRoute(t, p); ok {
			out = append(out, r)
		}
	}
	d.resolved.Store(t, out)
	return out
}

// resolveRoute follows path through t by JSON field names.
func resolveRoute(t reflect.Type, path []string) (fieldRoute, bool) {
	var r fieldRoute
	for i, name := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && i == len(path)-1 {
			r.key = name
			return r, true
		}
		if t.Kind() != reflect.Struct {
			return fieldRoute{}, false
		}
		idx, ok := jsonField(t, name)
		if !ok {
			return fieldRoute{}, false
		}
		r.steps = append(r.steps, idx)
		t = t.FieldByIndex(idx).Type
	}
	return r, len(r.steps) > 0
}

// jsonField finds the field of struct t whose JSON name is name, looking
// into inlined (embedded or ",inline") structs.
func jsonField(t reflect.Type, name string) ([]int, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		tagName, opts, _ := strings.Cut(tag, ",")
		if tagName == "-" {
			continue
		}
		inline := strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && tagName == "")
		if inline && f.Type.Kind() == reflect.Struct {
			if sub, ok := jsonField(f.Type, name); ok {
				return append([]int{i}, sub...), true
			}
			continue
		}
		if tagName == "" {
			tagName = f.Name
		}
		if tagName == name && f.IsExported() {
			return []int{i}, true
		}
	}
	return nil, false
}

// apply removes the route's field from v, a struct of the route's type.
func (r fieldRoute) apply(v reflect.Value) {
	for i, idx := range r.steps {
		for _, j := range idx {
			for v.Kind() == reflect.Pointer {
				if v.IsNil() {
					return
				}
				v = v.Elem()
			}
			v = v.Field(j)
		}
		if i == len(r.steps)-1 && r.key == "" {
			v.SetZero()
			return
		}
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Map && !v.IsNil() {
		v.SetMapIndex(reflect.ValueOf(r.key).Convert(v.Type().Key()), reflect.Value{})
	}
}
