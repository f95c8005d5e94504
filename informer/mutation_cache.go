package informer

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// MutationCache overlays a store with the results of a controller's own
// writes (Mutation), so that reads see an object the controller just
// updated before the informer does. Entries are kept in a size-bounded LRU
// with a TTL, and an entry is used only while it is newer, by resource
// version, than the store's object. It is safe for concurrent use; it is
// implemented only by this package.
type MutationCache interface {
	// GetByKey returns the newer of the store's object and the cached one.
	GetByKey(key string) (any, bool, error)
	// ByIndex returns the indexer's objects for an index value, each
	// replaced by a newer cached one.
	ByIndex(indexName, indexKey string) ([]any, error)
	// Mutation records the result of a write.
	Mutation(any)
	// OnAddOrUpdate, called from an event handler, drops a cached object
	// the store has caught up with.
	OnAddOrUpdate(obj runtime.Object)
	// OnDelete, called from an event handler, drops a cached object that
	// was deleted and keeps a tombstone against older writes.
	OnDelete(obj runtime.Object)

	internal()
}

// ResourceVersionComparator compares the resource versions of two
// objects: negative, zero or positive as lhs is older, the same or newer.
type ResourceVersionComparator interface {
	CompareResourceVersion(lhs, rhs runtime.Object) int
}

// MutationCacheOptions configures NewIntegerResourceVersionMutationCacheWithOptions.
type MutationCacheOptions struct {
	// Indexer serves ByIndex; nil makes ByIndex return an error.
	Indexer Indexer
	// TTL is how long a cached write is kept; zero means 5 minutes.
	TTL time.Duration
	// IncludeAdds makes GetByKey and ByIndex return cached objects that
	// the store does not hold (yet). Such an entry may outlive a delete
	// the informer never saw, for up to TTL.
	IncludeAdds bool
	// MaxCacheSize bounds the number of cached writes, least recently used
	// evicted first; zero means 100.
	MaxCacheSize int
}

// NewIntegerResourceVersionMutationCacheWithOptions returns a
// MutationCache over backingCache for objects whose resource versions are
// integers that grow with every write (as the API server's are).
func NewIntegerResourceVersionMutationCacheWithOptions(logger klog.Logger, backingCache Store, options MutationCacheOptions) MutationCache {
	size, ttl := 100, 5*time.Minute
	if options.MaxCacheSize != 0 {
		size = options.MaxCacheSize
	}
	if options.TTL != 0 {
		ttl = options.TTL
	}
	return &mutationCache{
		logger:      logger,
		backing:     backingCache,
		indexer:     options.Indexer,
		cache:       utilcache.NewLRUExpireCache(size),
		ttl:         ttl,
		includeAdds: options.IncludeAdds,
		cmp:         integerVersions{},
	}
}

// NewIntegerResourceVersionMutationCache is
// NewIntegerResourceVersionMutationCacheWithOptions with at most 100
// cached writes.
func NewIntegerResourceVersionMutationCache(logger klog.Logger, backingCache Store, indexer Indexer, ttl time.Duration, includeAdds bool) MutationCache {
	return NewIntegerResourceVersionMutationCacheWithOptions(logger, backingCache, MutationCacheOptions{
		Indexer: indexer, TTL: ttl, IncludeAdds: includeAdds, MaxCacheSize: 100,
	})
}

// mutationCache implements MutationCache. The LRU holds written objects
// and *mutationTombstone entries for observed deletes.
type mutationCache struct {
	logger      klog.Logger
	backing     Store
	indexer     Indexer
	ttl         time.Duration
	includeAdds bool
	cmp         ResourceVersionComparator

	mu    sync.Mutex // serialises compare-and-update of cache
	cache *utilcache.LRUExpireCache
}

func (c *mutationCache) internal() {}

// keyOf returns obj's key; a key error is reported and ok is false (the
// cache is an optimisation: a failure changes nothing).
func (c *mutationCache) keyOf(obj any) (key string, ok bool) {
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleErrorWithLogger(c.logger, err, "DeletionHandlingMetaNamespaceKeyFunc")
		return "", false
	}
	return key, true
}

func (c *mutationCache) GetByKey(key string) (any, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, exists, err := c.backing.GetByKey(key)
	if err != nil {
		return nil, false, err
	}
	if !exists {
		if !c.includeAdds {
			// A missing key may be a create not seen yet or a delete:
			// without IncludeAdds it is reported missing.
			return nil, false, nil
		}
		obj, exists = c.cache.Get(key)
		if !exists {
			return nil, false, nil
		}
		if _, dead := obj.(*mutationTombstone); dead {
			return nil, false, nil
		}
	}
	ro, ok := obj.(runtime.Object)
	if !ok {
		return obj, true, nil
	}
	return c.newerLocked(key, ro), true, nil
}

func (c *mutationCache) ByIndex(name, indexKey string) ([]any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.indexer == nil {
		return nil, errors.New("no indexer has been provided to the mutation cache")
	}
	keys, err := c.indexer.IndexKeys(name, indexKey)
	if err != nil {
		return nil, err
	}
	var items []any
	inStore := make(map[string]bool, len(keys))
	for _, key := range keys {
		inStore[key] = true
		obj, exists, err := c.indexer.GetByKey(key)
		if err != nil {
			return nil, err
		}
		if !exists {
			continue
		}
		if ro, ok := obj.(runtime.Object); ok {
			obj = c.newerLocked(key, ro)
		}
		items = append(items, obj)
	}
	if !c.includeAdds {
		return items, nil
	}
	indexFunc := c.indexer.GetIndexers()[name]
	// Keys lists oldest first; Get refreshes recency in that same order,
	// so the LRU order is kept.
	for _, k := range c.cache.Keys() {
		key := k.(string)
		obj, ok := c.cache.Get(key)
		if !ok || inStore[key] {
			continue
		}
		if _, dead := obj.(*mutationTombstone); dead {
			continue
		}
		values, err := indexFunc(obj)
		if err != nil {
			c.logger.V(4).Info("Unable to calculate an index entry for mutation cache entry", "key", key, "err", err)
			continue
		}
		for _, v := range values {
			if v == indexKey {
				items = append(items, obj)
				break
			}
		}
	}
	return items, nil
}

// newerLocked returns the cached object for key if it is newer than
// backing; a cached object that is not is dropped.
func (c *mutationCache) newerLocked(key string, backing runtime.Object) runtime.Object {
	ro, ok := c.cachedObjectLocked(key)
	if !ok {
		return backing
	}
	if c.cmp.CompareResourceVersion(backing, ro) >= 0 {
		c.cache.Remove(key)
		return backing
	}
	return ro
}

func (c *mutationCache) Mutation(obj any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, ok := c.keyOf(obj)
	if !ok {
		return
	}
	if ro, ok := obj.(runtime.Object); ok && c.staleLocked(key, ro) {
		return
	}
	c.cache.Add(key, obj, c.ttl)
}

// staleLocked reports whether a write of obj is older than what the cache
// knows for key: an older cached write, or a tombstone of this very
// version or of the same object instance.
func (c *mutationCache) staleLocked(key string, obj runtime.Object) bool {
	ro, ok := c.cachedObjectLocked(key)
	if !ok {
		return false
	}
	cmp := c.cmp.CompareResourceVersion(obj, ro)
	if cmp < 0 {
		return true
	}
	t, dead := ro.(*mutationTombstone)
	if !dead {
		return false
	}
	if cmp == 0 {
		return true
	}
	m, err := meta.Accessor(obj)
	return err == nil && m.GetUID() == t.UID
}

func (c *mutationCache) OnAddOrUpdate(obj runtime.Object) {
	key, ok := c.keyOf(obj)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Resource versions compare across object instances, so the UID
	// does not matter here.
	if ro, ok := c.cachedObjectLocked(key); ok && c.cmp.CompareResourceVersion(obj, ro) >= 0 {
		c.cache.Remove(key)
	}
}

// cachedObjectLocked returns the cache's entry for key if it is a
// runtime.Object (a write or a tombstone).
func (c *mutationCache) cachedObjectLocked(key string) (runtime.Object, bool) {
	cached, ok := c.cache.Get(key)
	if !ok {
		return nil, false
	}
	ro, ok := cached.(runtime.Object)
	return ro, ok
}

func (c *mutationCache) OnDelete(obj runtime.Object) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	key, ok := c.keyOf(obj)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ro, ok := c.cachedObjectLocked(key); ok {
		cm, err := meta.Accessor(ro)
		if err != nil {
			return
		}
		// A cached write older than the delete, or of the same
		// instance, is gone. Otherwise it may be a newer instance the
		// informer has not seen: keep it.
		if c.cmp.CompareResourceVersion(obj, ro) < 0 && cm.GetUID() != m.GetUID() {
			return
		}
		c.cache.Remove(key)
	}
	t := &mutationTombstone{}
	t.Namespace, t.Name, t.UID, t.ResourceVersion = m.GetNamespace(), m.GetName(), m.GetUID(), m.GetResourceVersion()
	c.cache.Add(key, t, c.ttl)
}

// mutationTombstone records, in the LRU, that an object was deleted at a
// resource version; it is compared like an object but never returned.
type mutationTombstone struct {
	metav1.ObjectMeta
}

func (t *mutationTombstone) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

func (t *mutationTombstone) DeepCopyObject() runtime.Object {
	return &mutationTombstone{ObjectMeta: *t.ObjectMeta.DeepCopy()}
}

// integerVersions compares resource versions as unsigned integers (an
// empty one is 0), panicking on one that is not: a programming error.
type integerVersions struct{}

func (integerVersions) CompareResourceVersion(lhs, rhs runtime.Object) int {
	l, r := integerVersion(lhs), integerVersion(rhs)
	switch {
	case l < r:
		return -1
	case l > r:
		return 1
	}
	return 0
}

func integerVersion(obj runtime.Object) uint64 {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	rv := m.GetResourceVersion()
	if rv == "" {
		return 0
	}
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		panic(err)
	}
	return v
}
