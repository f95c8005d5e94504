package informer

import (
	"errors"
	"fmt"

	"github.com/kfanout/fanout/internal/informermetrics"
)

// Store is a key-value store of objects that computes each object's key
// itself. A Store holds, per key, an accumulator: in the plain Store and the
// Indexer of this package the accumulator is the latest object, and nothing
// after Delete. A reflector writes into a Store.
//
// Every method is safe for concurrent use. Objects returned by Get and List
// are the stored ones, not copies: treat them as read-only.
type Store interface {
	// Add stores obj under its key.
	Add(obj any) error

	// Update stores obj under its key.
	Update(obj any) error

	// Delete removes the object with obj's key.
	Delete(obj any) error

	// List returns every stored object, in no particular order.
	List() []any

	// ListKeys returns every key, in no particular order.
	ListKeys() []string

	// LastStoreSyncResourceVersion returns the latest resource version the
	// store has seen in the objects written to it, or set by Replace and
	// Bookmark.
	LastStoreSyncResourceVersion() string

	// Bookmark records rv as the latest resource version the store has seen.
	Bookmark(rv string)

	// Get returns the object with obj's key.
	Get(obj any) (item any, exists bool, err error)

	// GetByKey returns the object with the given key.
	GetByKey(key string) (item any, exists bool, err error)

	// Replace replaces the whole content with list, and records
	// resourceVersion. The store takes ownership of list.
	Replace([]any, string) error

	// Resync does nothing in this package's stores; queues such as
	// DeltaFIFO give it a meaning.
	Resync() error
}

// cache is the Store and Indexer of this package: a KeyFunc in front of a
// threadSafeMap.
type cache struct {
	// storage holds the objects and their indices; it does the locking.
	storage *threadSafeMap
	// keyFunc computes the key of an object; it must be deterministic.
	keyFunc KeyFunc
	// transformer, if set, changes every object before it is stored.
	transformer TransformFunc
	// standardKeys is set when keyFunc is known to be
	// DeletionHandlingMetaNamespaceKeyFunc (the shared informer's store).
	standardKeys bool
	// identifier and metrics are set by WithStoreMetrics.
	identifier InformerNameAndResource
	metrics    InformerMetricsProvider
	hasMetrics bool
	// refusals counts and remembers the writes an index function refused.
	refusals refusalLog
}

var (
	_ Indexer          = &cache{}
	_ TransactionStore = &cache{}
)

// StoreOption configures NewStore and NewIndexer.
type StoreOption = func(*cache)

// WithTransformer makes the store apply transformer to every object given
// to Add, Update and Replace (after its key is computed) and store the
// result. A transformer error fails the write, wrapped as "transforming:".
func WithTransformer(transformer TransformFunc) StoreOption {
	return func(c *cache) {
		c.transformer = transformer
	}
}

// WithStoreMetrics makes the store report its resource version under
// identifier to metrics, or to the global provider when metrics is nil.
// Nothing is reported unless identifier is reserved.
func WithStoreMetrics(identifier InformerNameAndResource, metrics InformerMetricsProvider) StoreOption {
	return func(c *cache) {
		c.identifier = identifier
		c.metrics = informermetrics.Provider(metrics)
		c.hasMetrics = true
	}
}

// NewStore returns an empty Store backed by a map and a lock. The store
// also implements TransactionStore.
func NewStore(keyFunc KeyFunc, opts ...StoreOption) Store {
	return newCache(keyFunc, nil, opts)
}

// NewIndexer returns an empty Indexer, backed by a map and a lock, with the
// given index functions (nil means none). The indexer also implements
// TransactionStore.
//
// Unlike client-go, an index function error never panics: the write is
// refused and returned, and the indexer keeps its previous state (see
// Indexer for the exact rules). A keyFunc error is returned as a KeyError.
func NewIndexer(keyFunc KeyFunc, indexers Indexers, opts ...StoreOption) Indexer {
	return newCache(keyFunc, indexers, opts)
}

func newCache(keyFunc KeyFunc, indexers Indexers, opts []StoreOption) *cache {
	c := &cache{keyFunc: keyFunc}
	for _, opt := range opts {
		opt(c)
	}
	var storeOpts []ThreadSafeStoreOption
	if c.hasMetrics {
		storeOpts = append(storeOpts, WithThreadSafeStoreMetrics(c.identifier, c.metrics))
	}
	c.storage = newThreadSafeMap(indexers, Indices{}, storeOpts...)
	return c
}

// keyOf returns obj's key, or a KeyError.
func (c *cache) keyOf(obj any) (string, error) {
	if c.keyFunc == nil {
		return "", KeyError{Obj: obj, Err: errors.New("store has no key function")}
	}
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// prepare returns obj's key and the object to store.
func (c *cache) prepare(obj any) (string, any, error) {
	key, err := c.keyOf(obj)
	if err != nil {
		return "", nil, err
	}
	if c.transformer != nil {
		if obj, err = c.transformer(obj); err != nil {
			return "", nil, fmt.Errorf("transforming: %w", err)
		}
	}
	return key, obj, nil
}

// Add stores obj under its key.
func (c *cache) Add(obj any) error {
	key, obj, err := c.prepare(obj)
	if err != nil {
		return err
	}
	return c.storage.put(key, obj)
}

// Update stores obj under its key.
func (c *cache) Update(obj any) error {
	return c.Add(obj)
}

// upsert stores obj under its key and returns what was stored there
// before. It is the Get followed by Add or Update of process with one key
// computation instead of two (the key is a new string each time).
func (c *cache) upsert(obj any) (old any, existed bool, err error) {
	key, stored, err := c.prepare(obj)
	if err != nil {
		return nil, false, err
	}
	return c.storage.upsert(key, stored)
}

// upsertKey is upsert for an object whose key is known.
func (c *cache) upsertKey(key string, obj any) (old any, existed bool, err error) {
	if c.transformer != nil {
		if obj, err = c.transformer(obj); err != nil {
			return nil, false, fmt.Errorf("transforming: %w", err)
		}
	}
	return c.storage.upsert(key, obj)
}

// Delete removes the object with obj's key and records obj's resource
// version.
func (c *cache) Delete(obj any) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	c.storage.DeleteWithObject(key, obj)
	return nil
}

// Transaction applies txns in order under one lock. A transaction whose
// key cannot be computed, or that an index function refuses, is skipped
// and reported in the TransactionError; the others are applied. As in
// client-go, the transformer is not applied here: the queue that feeds a
// transaction has already transformed its objects.
func (c *cache) Transaction(txns ...Transaction) *TransactionError {
	keyed := make([]ThreadSafeStoreTransaction, 0, len(txns))
	positions := make([]int, 0, len(txns))
	var errs []error
	for i, txn := range txns {
		key, err := c.keyOf(txn.Object)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		keyed = append(keyed, ThreadSafeStoreTransaction{Transaction: txn, Key: key})
		positions = append(positions, i)
	}
	storeErrs := c.storage.transaction(keyed)
	if len(errs) == 0 && storeErrs == nil {
		return nil
	}
	ok := make([]int, 0, len(positions))
	for j, pos := range positions {
		if storeErrs != nil && storeErrs[j] != nil {
			errs = append(errs, storeErrs[j])
			continue
		}
		ok = append(ok, pos)
	}
	return &TransactionError{SuccessfulIndices: ok, TotalTransactions: len(txns), Errors: errs}
}

// List returns every stored object.
func (c *cache) List() []any { return c.storage.List() }

// ListKeys returns every key.
func (c *cache) ListKeys() []string { return c.storage.ListKeys() }

// LastStoreSyncResourceVersion returns the latest resource version seen,
// or "" when the AtomicFIFO feature gate is off.
func (c *cache) LastStoreSyncResourceVersion() string {
	return c.storage.LastStoreSyncResourceVersion()
}

// Bookmark records rv as the latest resource version.
func (c *cache) Bookmark(rv string) { c.storage.Bookmark(rv) }

// GetIndexers returns the index functions.
func (c *cache) GetIndexers() Indexers { return c.storage.GetIndexers() }

// Index returns the objects that share an indexed value with obj.
func (c *cache) Index(indexName string, obj any) ([]any, error) {
	return c.storage.Index(indexName, obj)
}

// IndexKeys returns the sorted keys with indexedValue in the named index;
// they can be passed to GetByKey.
func (c *cache) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return c.storage.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues returns every value of the named index.
func (c *cache) ListIndexFuncValues(indexName string) []string {
	return c.storage.ListIndexFuncValues(indexName)
}

// ByIndex returns the objects with indexedValue in the named index.
func (c *cache) ByIndex(indexName, indexedValue string) ([]any, error) {
	return c.storage.ByIndex(indexName, indexedValue)
}

// AddIndexers adds index functions and indexes the stored objects.
func (c *cache) AddIndexers(newIndexers Indexers) error {
	return c.storage.AddIndexers(newIndexers)
}

// Get returns the object with obj's key.
func (c *cache) Get(obj any) (item any, exists bool, err error) {
	key, err := c.keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return c.GetByKey(key)
}

// GetByKey returns the object stored under key.
func (c *cache) GetByKey(key string) (item any, exists bool, err error) {
	item, exists = c.storage.Get(key)
	return item, exists, nil
}

// Replace replaces the content with list and records resourceVersion. A
// key, transformer or index function error leaves the store unchanged.
func (c *cache) Replace(list []any, resourceVersion string) error {
	items := make(map[string]any, len(list))
	for _, obj := range list {
		key, obj, err := c.prepare(obj)
		if err != nil {
			return err
		}
		items[key] = obj
	}
	return c.storage.replace(items, resourceVersion)
}

// Resync does nothing.
func (c *cache) Resync() error { return nil }
