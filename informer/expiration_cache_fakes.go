package informer

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
)

// FakeExpirationPolicy is an ExpirationPolicy for tests: every entry has
// expired except those whose key is in NeverExpire.
type FakeExpirationPolicy struct {
	NeverExpire sets.Set[string]
	// RetrieveKeyFunc computes the key of a *TimestampedEntry.
	RetrieveKeyFunc KeyFunc
}

// IsExpired reports whether obj's key is missing from NeverExpire.
func (p *FakeExpirationPolicy) IsExpired(obj *TimestampedEntry) bool {
	key, _ := p.RetrieveKeyFunc(obj)
	return !p.NeverExpire.Has(key)
}

// NewFakeExpirationStore returns an ExpirationCache for tests, with the
// given policy and clock. When deletedKeys is not nil, the key of every
// entry deleted because it expired (or by Delete of the underlying store)
// is sent on it, so the channel must have room.
func NewFakeExpirationStore(keyFunc KeyFunc, deletedKeys chan<- string, expirationPolicy ExpirationPolicy, cacheClock clock.Clock) Store {
	return &ExpirationCache{
		storage:          &reportingThreadSafeStore{ThreadSafeStore: NewThreadSafeStore(Indexers{}, Indices{}), deletedKeys: deletedKeys},
		keyFunc:          keyFunc,
		clock:            cacheClock,
		expirationPolicy: expirationPolicy,
	}
}

// reportingThreadSafeStore reports the keys given to Delete.
type reportingThreadSafeStore struct {
	ThreadSafeStore
	deletedKeys chan<- string
}

// Delete removes key and sends it on deletedKeys.
func (s *reportingThreadSafeStore) Delete(key string) {
	s.ThreadSafeStore.Delete(key)
	if s.deletedKeys != nil {
		s.deletedKeys <- key
	}
}
