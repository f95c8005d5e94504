package informers

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// guessResource returns the resource of a built-in object type from
// client-go's scheme. It is zero for a type the scheme does not know.
func guessResource(obj runtime.Object) schema.GroupVersionResource {
	if obj == nil {
		return schema.GroupVersionResource{}
	}
	kinds, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil || len(kinds) == 0 {
		return schema.GroupVersionResource{}
	}
	return resourceOf(kinds[0])
}

// resourceOf returns the resource of the built-in kind gvk.
func resourceOf(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	if strings.HasSuffix(gvk.Kind, "Endpoints") {
		// The one built-in kind already plural.
		return gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind))
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	return gvr
}

// objectTypes maps each resource of client-go's scheme to its object
// type; a resource two kinds guess to is left out.
var objectTypes = sync.OnceValue(func() map[schema.GroupVersionResource]reflect.Type {
	m := map[schema.GroupVersionResource]reflect.Type{}
	twice := map[schema.GroupVersionResource]bool{}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		gvr := resourceOf(gvk)
		if old, ok := m[gvr]; ok && old != t {
			twice[gvr] = true
		}
		m[gvr] = t
	}
	for gvr := range twice {
		delete(m, gvr)
	}
	return m
})

// objectFor returns a new object of resource's type.
func objectFor(resource schema.GroupVersionResource) (runtime.Object, error) {
	t, ok := objectTypes()[resource]
	if !ok {
		return nil, fmt.Errorf("no object type known for %v", resource)
	}
	obj, ok := reflect.New(t).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("%v is not an object type", t)
	}
	return obj, nil
}
