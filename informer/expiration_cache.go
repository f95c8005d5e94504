package informer

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// ExpirationCache is a Store whose entries expire. Every write stamps the
// entry with the time; an entry is checked against the ExpirationPolicy
// when it is read (Get, GetByKey, List), and an expired one is deleted
// then and reported as missing. ListKeys does not check expiry.
//
// It takes a write lock on every read that checks expiry, so it is slower
// than a plain Store.
type ExpirationCache struct {
	storage          ThreadSafeStore
	keyFunc          KeyFunc
	clock            clock.Clock
	expirationPolicy ExpirationPolicy
	// expirationLock is held from the moment an entry is found expired
	// until it is deleted, and by every write, so that a fresh entry
	// written under the same key is never deleted in its place.
	expirationLock sync.Mutex
}

var _ Store = &ExpirationCache{}

// ExpirationPolicy decides whether an entry has expired.
type ExpirationPolicy interface {
	// IsExpired reports whether obj has expired.
	IsExpired(obj *TimestampedEntry) bool
}

// TTLPolicy expires entries older than TTL.
type TTLPolicy struct {
	// TTL is the age after which an entry expires; zero or less means
	// never.
	TTL time.Duration

	// Clock tells the time.
	Clock clock.Clock
}

// IsExpired reports whether obj is older than the TTL.
func (p *TTLPolicy) IsExpired(obj *TimestampedEntry) bool {
	return p.TTL > 0 && p.Clock.Since(obj.Timestamp) > p.TTL
}

// TimestampedEntry is an object stored in an ExpirationCache with the time
// it was written. Timestamps come from the local clock: do not compare them
// with times from another machine.
type TimestampedEntry struct {
	Obj       any
	Timestamp time.Time
	key       string
}

// NewTTLStore returns an ExpirationCache whose entries expire ttl after
// they were last written.
func NewTTLStore(keyFunc KeyFunc, ttl time.Duration) Store {
	return NewExpirationStore(keyFunc, &TTLPolicy{TTL: ttl, Clock: clock.RealClock{}})
}

// NewExpirationStore returns an ExpirationCache with the given policy.
func NewExpirationStore(keyFunc KeyFunc, expirationPolicy ExpirationPolicy) Store {
	return &ExpirationCache{
		storage:          NewThreadSafeStore(Indexers{}, Indices{}),
		keyFunc:          keyFunc,
		clock:            clock.RealClock{},
		expirationPolicy: expirationPolicy,
	}
}

// getOrExpire returns the object under key if it has not expired, and
// deletes it if it has.
func (c *ExpirationCache) getOrExpire(key string) (any, bool) {
	c.expirationLock.Lock()
	defer c.expirationLock.Unlock()
	item, _ := c.storage.Get(key)
	entry, ok := item.(*TimestampedEntry)
	if !ok {
		return nil, false
	}
	if c.expirationPolicy.IsExpired(entry) {
		c.storage.Delete(key)
		return nil, false
	}
	return entry.Obj, true
}

// GetByKey returns the unexpired object under key.
func (c *ExpirationCache) GetByKey(key string) (any, bool, error) {
	obj, exists := c.getOrExpire(key)
	return obj, exists, nil
}

// Get returns the unexpired object with obj's key.
func (c *ExpirationCache) Get(obj any) (any, bool, error) {
	key, err := c.keyFunc(obj)
	if err != nil {
		return nil, false, KeyError{Obj: obj, Err: err}
	}
	item, exists := c.getOrExpire(key)
	return item, exists, nil
}

// List returns the unexpired objects, and deletes the expired ones.
func (c *ExpirationCache) List() []any {
	items := c.storage.List()
	out := make([]any, 0, len(items))
	for _, item := range items {
		entry, ok := item.(*TimestampedEntry)
		if !ok {
			continue
		}
		if obj, exists := c.getOrExpire(entry.key); exists {
			out = append(out, obj)
		}
	}
	return out
}

// ListKeys returns every key, expired or not.
func (c *ExpirationCache) ListKeys() []string {
	return c.storage.ListKeys()
}

// LastStoreSyncResourceVersion returns the latest resource version seen.
func (c *ExpirationCache) LastStoreSyncResourceVersion() string {
	return c.storage.LastStoreSyncResourceVersion()
}

// Bookmark records rv as the latest resource version.
func (c *ExpirationCache) Bookmark(rv string) {
	c.storage.Bookmark(rv)
}

// Add stores obj, stamped with the current time, under its key.
func (c *ExpirationCache) Add(obj any) error {
	key, err := c.keyFunc(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	c.expirationLock.Lock()
	defer c.expirationLock.Unlock()
	// The object itself has no meta for the store to read, so the
	// resource version is not moved here (as in client-go).
	c.storage.Add(key, &TimestampedEntry{Obj: obj, Timestamp: c.clock.Now(), key: key})
	return nil
}

// Update is Add: it stores obj and renews its timestamp.
func (c *ExpirationCache) Update(obj any) error {
	return c.Add(obj)
}

// Delete removes the entry with obj's key.
func (c *ExpirationCache) Delete(obj any) error {
	key, err := c.keyFunc(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	c.expirationLock.Lock()
	defer c.expirationLock.Unlock()
	c.storage.DeleteWithObject(key, obj)
	return nil
}

// Replace replaces the content with list, every entry stamped with the
// same current time, and records resourceVersion.
func (c *ExpirationCache) Replace(list []any, resourceVersion string) error {
	items := make(map[string]any, len(list))
	now := c.clock.Now()
	for _, obj := range list {
		key, err := c.keyFunc(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		items[key] = &TimestampedEntry{Obj: obj, Timestamp: now, key: key}
	}
	c.expirationLock.Lock()
	defer c.expirationLock.Unlock()
	c.storage.Replace(items, resourceVersion)
	return nil
}

// Resync does nothing.
func (c *ExpirationCache) Resync() error {
	return nil
}
