package informer

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Indexer is a Store that also keeps secondary indices. Each accumulator
// holds only the current object, and nothing after Delete.
//
// Three kinds of strings meet here: the storage key (see Store), the name
// of an index, and an indexed value, which an IndexFunc computes from an
// object.
//
// Index functions run while the store holds its write lock (as in
// client-go), so they must be fast, must not call back into the store, and
// should be deterministic.
//
// # Index function errors
//
// client-go panics when an index function fails. This Indexer does not: a
// write is applied whole or not at all.
//
//   - Add, Update and Replace (and the Add and Update parts of a
//     Transaction) return the index function's error, wrapped with the index
//     name and the key (errors.Is and errors.As see the original). The
//     operation is refused and the store keeps its previous state: items,
//     indices and resource version.
//   - Delete never fails because of an index function: if the function
//     fails on the stored object, the key is removed from that index by a
//     scan of the index.
//   - AddIndexers is refused, and no indexer added, when one of the new
//     functions fails on an object already stored.
//
// The ThreadSafeStore methods that return no error (Add, Update, Replace,
// Transaction) keep the same rule and log the refusal.
type Indexer interface {
	Store
	// Index returns the stored objects that share at least one indexed
	// value with obj in the named index.
	Index(indexName string, obj any) ([]any, error)
	// IndexKeys returns, sorted, the keys of the stored objects whose
	// values in the named index include indexedValue.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// ListIndexFuncValues returns every value of the named index.
	ListIndexFuncValues(indexName string) []string
	// ByIndex returns the stored objects whose values in the named index
	// include indexedValue.
	ByIndex(indexName, indexedValue string) ([]any, error)
	// GetIndexers returns the index functions. The map must not be
	// modified.
	GetIndexers() Indexers
	// AddIndexers adds index functions and indexes the stored objects with
	// them. A name that is already in use is an error.
	AddIndexers(newIndexers Indexers) error
}

// IndexFunc computes the indexed values of an object.
type IndexFunc func(obj any) ([]string, error)

// IndexFuncToKeyFuncAdapter turns an index function that yields exactly one
// value per object into a KeyFunc; zero or several values are an error.
func IndexFuncToKeyFuncAdapter(indexFunc IndexFunc) KeyFunc {
	return func(obj any) (string, error) {
		values, err := indexFunc(obj)
		if err != nil {
			return "", err
		}
		switch len(values) {
		case 0:
			return "", errors.New("unexpected empty indexKeys")
		case 1:
			return values[0], nil
		default:
			return "", fmt.Errorf("too many keys: %v", values)
		}
	}
}

// NamespaceIndex is the conventional name of the index by namespace, the
// one MetaNamespaceIndexFunc computes and ListAllByNamespace uses.
const NamespaceIndex string = "namespace"

// MetaNamespaceIndexFunc indexes an object by its namespace. An object
// without metadata gives []string{""} together with an error.
func MetaNamespaceIndexFunc(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}, fmt.Errorf("object has no meta: %v", err)
	}
	return []string{m.GetNamespace()}, nil
}

// index maps an indexed value to the keys of the objects that have it.
type index map[string]sets.Set[string]

// Indexers maps the name of an index to its function.
type Indexers map[string]IndexFunc

// Indices maps the name of an index to its content.
type Indices map[string]index
