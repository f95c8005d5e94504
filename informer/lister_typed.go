package informer

import (
	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TypedLister lists and gets objects of type T from an Indexer, so that a
// controller needs no generated lister (client-go's generated listers
// cannot take this package's Indexer).
type TypedLister[T runtime.Object] interface {
	// List returns the objects of every namespace whose labels match
	// selector.
	List(selector labels.Selector) ([]T, error)
	// Get returns the object whose key is name (cluster-scoped objects),
	// or a NotFound error for the lister's resource.
	Get(name string) (T, error)
	// ByNamespace returns a lister restricted to namespace.
	ByNamespace(namespace string) TypedNamespaceLister[T]
}

// TypedNamespaceLister lists and gets objects of type T in one namespace.
type TypedNamespaceLister[T runtime.Object] interface {
	// List returns the objects of the namespace whose labels match
	// selector.
	List(selector labels.Selector) ([]T, error)
	// Get returns the named object of the namespace, or a NotFound error.
	Get(name string) (T, error)
}

// NewLister returns a TypedLister over indexer, whose objects must all be
// of type T; resource names them in NotFound errors. The indexer should
// have a NamespaceIndex for fast namespace lists. A stored object of
// another type makes List and Get return an error.
func NewLister[T runtime.Object](indexer Indexer, resource schema.GroupResource) TypedLister[T] {
	return typedLister[T]{indexer: indexer, resource: resource}
}

type typedLister[T runtime.Object] struct {
	indexer  Indexer
	resource schema.GroupResource
}

// List returns the matching objects of every namespace.
func (l typedLister[T]) List(selector labels.Selector) ([]T, error) {
	var c typedObjects[T]
	if err := ListAll(l.indexer, selector, c.append); err != nil {
		return nil, err
	}
	return c.result()
}

// Get returns the object stored under name.
func (l typedLister[T]) Get(name string) (T, error) {
	return getTyped[T](l.indexer, l.resource, name, name)
}

// ByNamespace returns a lister restricted to namespace.
func (l typedLister[T]) ByNamespace(namespace string) TypedNamespaceLister[T] {
	return typedNamespaceLister[T]{indexer: l.indexer, resource: l.resource, namespace: namespace}
}

type typedNamespaceLister[T runtime.Object] struct {
	indexer   Indexer
	resource  schema.GroupResource
	namespace string
}

// List returns the matching objects of the namespace.
func (l typedNamespaceLister[T]) List(selector labels.Selector) ([]T, error) {
	var c typedObjects[T]
	if err := ListAllByNamespace(l.indexer, l.namespace, selector, c.append); err != nil {
		return nil, err
	}
	return c.result()
}

// Get returns the named object of the namespace.
func (l typedNamespaceLister[T]) Get(name string) (T, error) {
	return getTyped[T](l.indexer, l.resource, l.namespace+"/"+name, name)
}

// getTyped returns the T stored under key, or a NotFound error for name.
func getTyped[T runtime.Object](indexer Indexer, resource schema.GroupResource, key, name string) (T, error) {
	var zero T
	obj, exists, err := indexer.GetByKey(key)
	if err != nil {
		return zero, err
	}
	if !exists {
		return zero, errors.NewNotFound(resource, name)
	}
	typed, ok := obj.(T)
	if !ok {
		return zero, wrongTypeError[T](obj)
	}
	return typed, nil
}

// typedObjects collects Ts and remembers the first object of another type.
type typedObjects[T runtime.Object] struct {
	objs []T
	bad  any
	has  bool
}

func (c *typedObjects[T]) append(obj any) {
	if typed, ok := obj.(T); ok {
		c.objs = append(c.objs, typed)
	} else if !c.has {
		c.bad, c.has = obj, true
	}
}

func (c *typedObjects[T]) result() ([]T, error) {
	if c.has {
		return nil, wrongTypeError[T](c.bad)
	}
	return c.objs, nil
}
