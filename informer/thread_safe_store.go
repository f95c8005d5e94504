package informer

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/internal/features"
	"github.com/kfanout/fanout/internal/informermetrics"
)

// ThreadSafeStore is a store of keyed objects with indices, safe for
// concurrent use. Unlike Indexer it is given the keys; it does not compute
// them.
//
// Objects returned by Get, List, Index and ByIndex are the stored ones:
// changing them corrupts the indices (a stored object is not re-indexed
// when it changes) and races with other readers. Treat them as read-only.
//
// Index function errors follow the rules described on Indexer; the
// methods here that return no error log a refused write.
type ThreadSafeStore interface {
	// Add stores obj under key.
	Add(key string, obj any)
	// Update stores obj under key.
	Update(key string, obj any)
	// Delete is DeleteWithObject(key, nil): it does not move the resource
	// version, so prefer DeleteWithObject.
	Delete(key string)
	// DeleteWithObject removes key and records obj's resource version.
	DeleteWithObject(key string, obj any)
	// Get returns the object stored under key.
	Get(key string) (item any, exists bool)
	// List returns every object, in no particular order.
	List() []any
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Replace replaces the content with items, rebuilds the indices and
	// records the resource version. The store takes ownership of items.
	Replace(map[string]any, string)
	// Index returns the objects that share an indexed value with obj.
	Index(indexName string, obj any) ([]any, error)
	// IndexKeys returns, sorted, the keys whose values in the named index
	// include indexedValue.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// Bookmark records rv as the latest resource version.
	Bookmark(rv string)
	// LastStoreSyncResourceVersion returns the latest resource version,
	// or "" when the AtomicFIFO feature gate is off.
	LastStoreSyncResourceVersion() string
	// ListIndexFuncValues returns every value of the named index.
	ListIndexFuncValues(name string) []string
	// ByIndex returns the objects whose values in the named index include
	// indexedValue.
	ByIndex(indexName, indexedValue string) ([]any, error)
	// GetIndexers returns the index functions; do not modify the map.
	GetIndexers() Indexers

	// AddIndexers adds index functions and indexes the stored objects.
	AddIndexers(newIndexers Indexers) error
	// Resync does nothing.
	Resync() error
}

// ThreadSafeStoreOption configures NewThreadSafeStore.
type ThreadSafeStoreOption = func(*threadSafeMap)

// WithThreadSafeStoreMetrics reports the store's resource version to the
// provider (nil means the global one) under identifier, if the identifier
// is reserved.
func WithThreadSafeStoreMetrics(identifier InformerNameAndResource, metricsProvider InformerMetricsProvider) ThreadSafeStoreOption {
	return func(m *threadSafeMap) {
		m.rvMetric = informermetrics.NewStoreResourceVersionMetric(identifier, metricsProvider)
	}
}

// NewThreadSafeStore returns an empty ThreadSafeStore (it also implements
// ThreadSafeStoreWithTransaction) with the given index functions. indices
// is the initial content of the indices and is normally empty.
func NewThreadSafeStore(indexers Indexers, indices Indices, opts ...ThreadSafeStoreOption) ThreadSafeStore {
	return newThreadSafeMap(indexers, indices, opts...)
}

func newThreadSafeMap(indexers Indexers, indices Indices, opts ...ThreadSafeStoreOption) *threadSafeMap {
	own := make(Indexers, len(indexers))
	for name, fn := range indexers {
		own[name] = fn
	}
	if indices == nil {
		indices = Indices{}
	}
	m := &threadSafeMap{
		items:    map[string]any{},
		index:    storeIndex{indexers: own, indices: indices},
		rvMetric: informermetrics.Noop{},
	}
	for _, opt := range opts {
		opt(m)
	}
	_, m.rvMetricOff = m.rvMetric.(informermetrics.Noop)
	return m
}

// threadSafeMap is the ThreadSafeStore of this package.
type threadSafeMap struct {
	mu sync.RWMutex // guards every field below
	// items maps a key to its object.
	items map[string]any
	// index holds the indices of items.
	index storeIndex
	// rv is the latest resource version seen.
	rv string
	// rvMetric receives rv; it is set under mu so that values arrive in
	// order. Written once, at construction.
	rvMetric GaugeMetric
	// rvMetricOff is set when rvMetric is a no-op, so that a write does
	// not parse its resource version for nothing.
	rvMetricOff bool
}

var _ ThreadSafeStoreWithTransaction = &threadSafeMap{}

// Add stores obj under key; a refused write is logged.
func (m *threadSafeMap) Add(key string, obj any) {
	m.Update(key, obj)
}

// Update stores obj under key; a refused write is logged.
func (m *threadSafeMap) Update(key string, obj any) {
	if err := m.put(key, obj); err != nil {
		klog.Background().Error(err, "Store refused a write", "key", key)
	}
}

// put stores obj under key and records its resource version, or leaves
// the store unchanged and returns the error of an index function.
func (m *threadSafeMap) put(key string, obj any) error {
	_, _, err := m.upsert(key, obj)
	return err
}

// upsert is put that also returns the object key held before, under the
// same lock.
func (m *threadSafeMap) upsert(key string, obj any) (old any, existed bool, err error) {
	rv, hasRV := resourceVersionOf(obj)
	m.mu.Lock()
	defer m.mu.Unlock()
	old, existed = m.items[key]
	if err := m.replaceLocked(key, old, obj); err != nil {
		return nil, false, err
	}
	if hasRV {
		m.setRVLocked(rv)
	}
	return old, existed, nil
}

// putLocked stores obj under key, or returns the error of an index
// function.
func (m *threadSafeMap) putLocked(key string, obj any) error {
	return m.replaceLocked(key, m.items[key], obj)
}

// replaceLocked stores obj under key in place of old, the object stored
// there (nil for none), or returns the error of an index function.
func (m *threadSafeMap) replaceLocked(key string, old, obj any) error {
	if m.index.empty() {
		m.items[key] = obj
		return nil
	}
	changes, err := m.index.plan(key, old, obj)
	if err != nil {
		return err
	}
	m.items[key] = obj
	m.index.apply(key, changes)
	return nil
}

// Delete removes key without moving the resource version.
func (m *threadSafeMap) Delete(key string) {
	m.DeleteWithObject(key, nil)
}

// DeleteWithObject removes key, and records obj's resource version when
// obj is not nil.
func (m *threadSafeMap) DeleteWithObject(key string, obj any) {
	var rv string
	var hasRV bool
	if obj != nil {
		rv, hasRV = resourceVersionOf(obj)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleteLocked(key)
	if hasRV {
		m.setRVLocked(rv)
	}
}

func (m *threadSafeMap) deleteLocked(key string) {
	old, ok := m.items[key]
	if !ok {
		return
	}
	// plan cannot fail without a new object.
	changes, _ := m.index.plan(key, old, nil)
	m.index.apply(key, changes)
	delete(m.items, key)
}

// Transaction applies txns under one lock and records the resource version
// of the last applied one; a refused write is logged.
func (m *threadSafeMap) Transaction(txns ...ThreadSafeStoreTransaction) {
	for i, err := range m.transaction(txns) {
		if err != nil {
			klog.Background().Error(err, "Store refused a write of a transaction", "key", txns[i].Key)
		}
	}
}

// transaction applies txns and returns, when some were refused, one error
// (or nil) per transaction.
func (m *threadSafeMap) transaction(txns []ThreadSafeStoreTransaction) []error {
	if len(txns) == 0 {
		return nil
	}
	if traceEnabled() {
		defer logSlowTransaction(time.Now(), len(txns))
	}

	var errs []error
	m.mu.Lock()
	defer m.mu.Unlock()
	last := -1
	for i, txn := range txns {
		var err error
		switch txn.Type {
		case TransactionTypeAdd, TransactionTypeUpdate:
			err = m.putLocked(txn.Key, txn.Object)
		case TransactionTypeDelete:
			m.deleteLocked(txn.Key)
		default:
			err = fmt.Errorf("unknown transaction type %q for key %q", txn.Type, txn.Key)
		}
		if err != nil {
			if errs == nil {
				errs = make([]error, len(txns))
			}
			errs[i] = err
			continue
		}
		last = i
	}
	if last >= 0 {
		if rv, ok := resourceVersionOf(txns[last].Object); ok {
			m.setRVLocked(rv)
		}
	}
	return errs
}

// Get returns the object stored under key.
func (m *threadSafeMap) Get(key string) (item any, exists bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	item, exists = m.items[key]
	return item, exists
}

// List returns every object.
func (m *threadSafeMap) List() []any {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]any, 0, len(m.items))
	for _, item := range m.items {
		out = append(out, item)
	}
	return out
}

// ListKeys returns every key.
func (m *threadSafeMap) ListKeys() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.items))
	for key := range m.items {
		out = append(out, key)
	}
	return out
}

// Replace replaces the content; a refused replace is logged.
func (m *threadSafeMap) Replace(items map[string]any, resourceVersion string) {
	if err := m.replace(items, resourceVersion); err != nil {
		klog.Background().Error(err, "Store refused a replace", "resourceVersion", resourceVersion)
	}
}

// replace installs items and their indices and records resourceVersion,
// or leaves the store unchanged when an index function fails. The indices
// are built before the write lock is taken, so readers are not blocked
// while a large list is indexed.
func (m *threadSafeMap) replace(items map[string]any, resourceVersion string) error {
	if items == nil {
		items = map[string]any{}
	}
	for {
		m.mu.RLock()
		indexers, gen := m.index.indexers, m.index.gen
		m.mu.RUnlock()

		indices, err := buildIndices(items, indexers)
		if err != nil {
			return err
		}

		m.mu.Lock()
		if m.index.gen != gen {
			// AddIndexers ran meanwhile: index again with the new set.
			m.mu.Unlock()
			continue
		}
		m.items = items
		m.index.indices = indices
		m.setRVLocked(resourceVersion)
		m.mu.Unlock()
		return nil
	}
}

// Index returns the objects that share an indexed value with obj. The
// index function runs without the store's lock.
func (m *threadSafeMap) Index(indexName string, obj any) ([]any, error) {
	m.mu.RLock()
	fn := m.index.indexers[indexName]
	m.mu.RUnlock()
	if fn == nil {
		return nil, noIndexError(indexName)
	}
	values, err := fn(obj)
	if err != nil {
		return nil, err
	}

	m.mu.RLock()
	defer m.mu.RUnlock()
	keys := m.index.keysFor(indexName, values)
	out := make([]any, 0, keys.Len())
	for key := range keys {
		out = append(out, m.items[key])
	}
	return out, nil
}

// IndexKeys returns the sorted keys with indexedValue in the named index.
func (m *threadSafeMap) IndexKeys(indexName, indexedValue string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	keys, err := m.index.keysByValue(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return sets.List(keys), nil
}

// ByIndex returns the objects with indexedValue in the named index.
func (m *threadSafeMap) ByIndex(indexName, indexedValue string) ([]any, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	keys, err := m.index.keysByValue(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, keys.Len())
	for key := range keys {
		out = append(out, m.items[key])
	}
	return out, nil
}

// ListIndexFuncValues returns every value of the named index.
func (m *threadSafeMap) ListIndexFuncValues(indexName string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.index.values(indexName)
}

// GetIndexers returns the index functions. The map is never modified by
// the store afterwards (AddIndexers installs a new one).
func (m *threadSafeMap) GetIndexers() Indexers {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.index.indexers
}

// AddIndexers adds index functions and indexes the stored objects with
// them. A name already in use, or an index function that fails on a
// stored object, refuses the whole call.
func (m *threadSafeMap) AddIndexers(newIndexers Indexers) error {
	m.mu.Lock()
	defer m.mu.Unlock()

	if conflict := sets.KeySet(m.index.indexers).Intersection(sets.KeySet(newIndexers)); conflict.Len() > 0 {
		return fmt.Errorf("indexer conflict: %v", conflict)
	}
	added, err := buildIndices(m.items, newIndexers)
	if err != nil {
		return err
	}
	merged := make(Indexers, len(m.index.indexers)+len(newIndexers))
	for name, fn := range m.index.indexers {
		merged[name] = fn
	}
	for name, fn := range newIndexers {
		merged[name] = fn
		m.index.indices[name] = added[name]
	}
	m.index.indexers = merged
	m.index.gen++
	return nil
}

// Bookmark records rv.
func (m *threadSafeMap) Bookmark(rv string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setRVLocked(rv)
}

// LastStoreSyncResourceVersion returns the latest resource version, or ""
// when the AtomicFIFO feature gate is off.
func (m *threadSafeMap) LastStoreSyncResourceVersion() string {
	if !features.Enabled(features.AtomicFIFO) {
		return ""
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.rv
}

// Resync does nothing.
func (m *threadSafeMap) Resync() error { return nil }

// setRVLocked records rv and reports it to the metric when it is a number.
func (m *threadSafeMap) setRVLocked(rv string) {
	m.rv = rv
	if m.rvMetricOff {
		return
	}
	if v, err := rvForMetric(rv); err == nil {
		m.rvMetric.Set(float64(v))
	}
}

// resourceVersionOf returns obj's resource version; ok is false when obj
// has no metadata.
func resourceVersionOf(obj any) (rv string, ok bool) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", false
	}
	return m.GetResourceVersion(), true
}

// rvForMetric turns a resource version into a number for a gauge. Only
// the last 15 digits are kept, so the value is exact in a float64; "" is 0.
func rvForMetric(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	if len(rv) > 15 {
		rv = rv[len(rv)-15:]
	}
	return strconv.ParseInt(rv, 10, 64)
}

// reserveAbove is the list size from which an empty store is presized.
const reserveAbove = 1024

// reserve makes room for n objects in an empty store. It does nothing for a
// small n or a store that holds objects.
func (m *threadSafeMap) reserve(n int) {
	if n < reserveAbove {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.items) == 0 {
		m.items = make(map[string]any, n)
	}
}

// len is the number of stored objects.
func (m *threadSafeMap) len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.items)
}
