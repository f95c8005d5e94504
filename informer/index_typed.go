package informer

import (
	"fmt"
	"reflect"
)

// TypedIndexFunc computes the indexed values of an object of type T.
type TypedIndexFunc[T any] func(obj T) ([]string, error)

// TypedIndexers maps the name of an index to its typed function.
type TypedIndexers[T any] map[string]TypedIndexFunc[T]

// TypedIndexer is an Indexer whose objects are all of type T, with typed
// variants of the methods that take or return objects.
type TypedIndexer[T any] interface {
	Indexer

	// TypedIndex is Index with typed objects.
	TypedIndex(indexName string, obj T) ([]T, error)
	// ByTypedIndex is ByIndex with typed objects.
	ByTypedIndex(indexName, indexedValue string) ([]T, error)
	// AddTypedIndexers is AddIndexers with typed functions.
	AddTypedIndexers(newIndexers TypedIndexers[T]) error
}

// TypedIndexersToIndexers wraps typed index functions so that an Indexer
// can use them, for example in SharedIndexInformerOptions.Indexers.
func TypedIndexersToIndexers[T any](indexers TypedIndexers[T]) Indexers {
	out := make(Indexers, len(indexers))
	for name, fn := range indexers {
		out[name] = TypedIndexerFuncToIndexerFunc(fn)
	}
	return out
}

// TypedIndexerFuncToIndexerFunc wraps one typed index function so that an
// Indexer can use it. An object that is not a T gives an error (client-go
// panics), which the Indexer reports as described on Indexer.
func TypedIndexerFuncToIndexerFunc[T any](indexer TypedIndexFunc[T]) IndexFunc {
	return func(obj any) ([]string, error) {
		typed, ok := obj.(T)
		if !ok {
			return nil, wrongTypeError[T](obj)
		}
		return indexer(typed)
	}
}

// NewTypedIndexer returns indexer seen as a TypedIndexer[T]. The typed
// methods return an error when the indexer holds an object that is not a
// T.
func NewTypedIndexer[T any](indexer Indexer) TypedIndexer[T] {
	return storeTypedIndexer[T]{Indexer: indexer}
}

// storeTypedIndexer adds the typed methods to an Indexer.
type storeTypedIndexer[T any] struct {
	Indexer
}

// TypedIndex is Index with typed objects.
func (i storeTypedIndexer[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	objs, err := i.Index(indexName, obj)
	if err != nil {
		return nil, err
	}
	return asTyped[T](objs)
}

// ByTypedIndex is ByIndex with typed objects.
func (i storeTypedIndexer[T]) ByTypedIndex(indexName, indexedValue string) ([]T, error) {
	objs, err := i.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return asTyped[T](objs)
}

// AddTypedIndexers is AddIndexers with typed functions.
func (i storeTypedIndexer[T]) AddTypedIndexers(newIndexers TypedIndexers[T]) error {
	return i.AddIndexers(TypedIndexersToIndexers(newIndexers))
}

// asTyped converts objs to []T, or fails on the first object that is not
// a T.
func asTyped[T any](objs []any) ([]T, error) {
	out := make([]T, len(objs))
	for n, obj := range objs {
		typed, ok := obj.(T)
		if !ok {
			return nil, wrongTypeError[T](obj)
		}
		out[n] = typed
	}
	return out, nil
}

// wrongTypeError says that obj is not a T.
func wrongTypeError[T any](obj any) error {
	return fmt.Errorf("object of type %T is not of the expected type %v", obj, reflect.TypeFor[T]())
}
