package informer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// AppendFunc receives each object a list function selects.
type AppendFunc func(any)

// ListAll calls appendFn on every object of store whose labels match
// selector. A selector that matches nothing calls it on none; an empty one
// on all, without reading labels; a nil one is taken as empty (client-go
// panics). An object without metadata is an error when labels must be read.
func ListAll(store Store, selector labels.Selector, appendFn AppendFunc) error {
	if selector == nil {
		selector = labels.Everything()
	}
	if labels.MatchesNothing(selector) {
		return nil
	}
	return appendMatching(store.List(), selector, appendFn)
}

// ListAllByNamespace is ListAll restricted to one namespace; the empty
// namespace (metav1.NamespaceAll) means all of them. It reads the
// NamespaceIndex of indexer, and scans every object when the indexer has no
// such index.
func ListAllByNamespace(indexer Indexer, namespace string, selector labels.Selector, appendFn AppendFunc) error {
	if selector == nil {
		selector = labels.Everything()
	}
	if labels.MatchesNothing(selector) {
		return nil
	}
	if namespace == metav1.NamespaceAll {
		return ListAll(indexer, selector, appendFn)
	}
	objs, err := indexer.Index(NamespaceIndex, &metav1.ObjectMeta{Namespace: namespace})
	if err == nil {
		return appendMatching(objs, selector, appendFn)
	}

	// No usable namespace index: filter every object.
	klog.Background().V(4).Info("Listing by namespace without the namespace index", "namespace", namespace, "err", err)
	for _, obj := range indexer.List() {
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("object has no meta: %w", err)
		}
		if m.GetNamespace() == namespace && selector.Matches(labels.Set(m.GetLabels())) {
			appendFn(obj)
		}
	}
	return nil
}

// appendMatching calls appendFn on the objects whose labels match selector.
func appendMatching(objs []any, selector labels.Selector, appendFn AppendFunc) error {
	if selector.Empty() {
		// Every object matches: skip reading labels.
		for _, obj := range objs {
			appendFn(obj)
		}
		return nil
	}
	for _, obj := range objs {
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("object has no meta: %w", err)
		}
		if selector.Matches(labels.Set(m.GetLabels())) {
			appendFn(obj)
		}
	}
	return nil
}

// GenericLister lists and gets runtime.Objects from an Indexer.
type GenericLister interface {
	// List returns the objects of every namespace whose labels match
	// selector.
	List(selector labels.Selector) (ret []runtime.Object, err error)
	// Get returns the object whose key is name (cluster-scoped objects),
	// or a NotFound error.
	Get(name string) (runtime.Object, error)
	// ByNamespace returns a lister restricted to namespace.
	ByNamespace(namespace string) GenericNamespaceLister
}

// GenericNamespaceLister lists and gets runtime.Objects of one namespace.
type GenericNamespaceLister interface {
	// List returns the objects of the namespace whose labels match
	// selector.
	List(selector labels.Selector) (ret []runtime.Object, err error)
	// Get returns the named object of the namespace, or a NotFound error.
	Get(name string) (runtime.Object, error)
}

// NewGenericLister returns a GenericLister over indexer; resource names
// the objects in NotFound errors. A stored object that is not a
// runtime.Object makes List and Get fail (client-go panics).
func NewGenericLister(indexer Indexer, resource schema.GroupResource) GenericLister {
	return &genericLister{indexer: indexer, resource: resource}
}

type genericLister struct {
	indexer  Indexer
	resource schema.GroupResource
}

// List returns the matching objects of every namespace.
func (l *genericLister) List(selector labels.Selector) ([]runtime.Object, error) {
	var c runtimeObjects
	if err := ListAll(l.indexer, selector, c.append); err != nil {
		return nil, err
	}
	return c.result()
}

// Get returns the object stored under name.
func (l *genericLister) Get(name string) (runtime.Object, error) {
	return getRuntimeObject(l.indexer, l.resource, name, name)
}

// ByNamespace returns a lister restricted to namespace.
func (l *genericLister) ByNamespace(namespace string) GenericNamespaceLister {
	return &genericNamespaceLister{indexer: l.indexer, namespace: namespace, resource: l.resource}
}

type genericNamespaceLister struct {
	indexer   Indexer
	namespace string
	resource  schema.GroupResource
}

// List returns the matching objects of the namespace.
func (l *genericNamespaceLister) List(selector labels.Selector) ([]runtime.Object, error) {
	var c runtimeObjects
	if err := ListAllByNamespace(l.indexer, l.namespace, selector, c.append); err != nil {
		return nil, err
	}
	return c.result()
}

// Get returns the named object of the namespace.
func (l *genericNamespaceLister) Get(name string) (runtime.Object, error) {
	return getRuntimeObject(l.indexer, l.resource, l.namespace+"/"+name, name)
}

// getRuntimeObject returns the object stored under key, or a NotFound error
// for name.
func getRuntimeObject(indexer Indexer, resource schema.GroupResource, key, name string) (runtime.Object, error) {
	obj, exists, err := indexer.GetByKey(key)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, errors.NewNotFound(resource, name)
	}
	ro, ok := obj.(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("object of type %T under key %q is not a runtime.Object", obj, key)
	}
	return ro, nil
}

// runtimeObjects collects runtime.Objects and remembers the first object
// of another type.
type runtimeObjects struct {
	objs []runtime.Object
	bad  any
	has  bool
}

func (c *runtimeObjects) append(obj any) {
	if ro, ok := obj.(runtime.Object); ok {
		c.objs = append(c.objs, ro)
	} else if !c.has {
		c.bad, c.has = obj, true
	}
}

func (c *runtimeObjects) result() ([]runtime.Object, error) {
	if c.has {
		return nil, fmt.Errorf("object of type %T is not a runtime.Object", c.bad)
	}
	return c.objs, nil
}
