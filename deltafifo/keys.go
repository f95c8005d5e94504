package deltafifo

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
)

// KeyFunc maps an object to its key. It must be deterministic.
type KeyFunc func(obj any) (string, error)

// KeyError wraps the error of a KeyFunc together with the object.
type KeyError struct {
	Obj any
	Err error
}

// Error describes the failure.
func (k KeyError) Error() string {
	return fmt.Sprintf("couldn't create key for object %+v: %v", k.Obj, k.Err)
}

// Unwrap returns the key function's error.
func (k KeyError) Unwrap() error { return k.Err }

// ExplicitKey is a key given instead of an object; MetaNamespaceKeyFunc
// returns it unchanged.
type ExplicitKey string

// MetaNamespaceKeyFunc returns "namespace/name" for namespaced objects and
// "name" for cluster-scoped ones. An ExplicitKey is returned as it is; an
// object without metadata is an error.
func MetaNamespaceKeyFunc(obj any) (string, error) {
	if key, ok := obj.(ExplicitKey); ok {
		return string(key), nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", fmt.Errorf("object has no meta: %v", err)
	}
	if ns := m.GetNamespace(); ns != "" {
		return ns + "/" + m.GetName(), nil
	}
	return m.GetName(), nil
}

// DeletionHandlingMetaNamespaceKeyFunc is MetaNamespaceKeyFunc that also
// accepts a DeletedFinalStateUnknown, fanout's or client-go's (see
// AsDeletedFinalStateUnknown), and returns its Key.
func DeletionHandlingMetaNamespaceKeyFunc(obj any) (string, error) {
	if d, ok := AsDeletedFinalStateUnknown(obj); ok {
		return d.Key, nil
	}
	return MetaNamespaceKeyFunc(obj)
}
