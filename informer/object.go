package informer

// Object is the part of metav1.Object that names an object: every
// Kubernetes API type satisfies it through its embedded ObjectMeta. The
// typed APIs of this package (TypedIndexer, NewLister and the typed
// informer) take their type parameter from it.
//
// It is comparable so that a typed API can compare a T with its zero value,
// for example to tell that an optional object (a nil pointer) is missing.
type Object interface {
	comparable

	GetName() string
	GetNamespace() string
}
