package ring

import (
	"fmt"
	"hash/fnv"
	"math/bits"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// Key is the object field whose FNV-1a 64-bit hash places an object in a
// range, in the shard selector's CEL-style syntax.
type Key string

// The two keys KEP-5866 and k8s.io/apimachinery/pkg/sharding support.
const (
	// KeyUID hashes metadata.uid: objects spread evenly, one namespace's
	// objects over every range.
	KeyUID Key = "object.metadata.uid"
	// KeyNamespace hashes metadata.namespace: all objects of a namespace
	// land in one range (cluster-scoped objects all hash "").
	KeyNamespace Key = "object.metadata.namespace"
)

// Range is one of Count equal, contiguous ranges of the 64-bit hash space:
// range i holds the hashes h with Start() <= h < Start() + 2^64/Count.
type Range struct {
	// Index is the range's position, 0 <= Index < Count.
	Index int
	// Count is the number of ranges the space is split into, a power of two.
	Count int
}

// Ranges returns the n ranges of the hash space in order. n must be a power
// of two between 1 and 2^16.
func Ranges(n int) ([]Range, error) {
	if err := validateRangeCount(n); err != nil {
		return nil, err
	}
	out := make([]Range, n)
	for i := range out {
		out[i] = Range{Index: i, Count: n}
	}
	return out, nil
}

// maxRanges bounds the number of ranges: each owned range costs a list and
// a watch, so more than this is a configuration mistake.
const maxRanges = 1 << 16

func validateRangeCount(n int) error {
	if n < 1 || n > maxRanges || n&(n-1) != 0 {
		return fmt.Errorf("sharding: number of ranges must be a power of two in [1, %d], got %d", maxRanges, n)
	}
	return nil
}

// shift is how far a hash is shifted right to give its range index.
func (r Range) shift() uint {
	return uint(64 - bits.TrailingZeros(uint(r.Count)))
}

// Start is the range's inclusive lower bound.
func (r Range) Start() uint64 {
	if r.Count == 1 {
		return 0
	}
	return uint64(r.Index) << r.shift()
}

// Contains reports whether hash falls in the range.
func (r Range) Contains(hash uint64) bool {
	return RangeIndex(hash, r.Count) == r.Index
}

// RangeIndex is the index of the range of count that holds hash.
func RangeIndex(hash uint64, count int) int {
	if count <= 1 {
		return 0
	}
	return int(hash >> uint(64-bits.TrailingZeros(uint(count))))
}

// String names the range for logs, for example "3/16".
func (r Range) String() string {
	return fmt.Sprintf("%d/%d", r.Index, r.Count)
}

// Selector is the range as a shard selector on key, the value of
// ListOptions.ShardSelector (KEP-5866), for example
// shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000').
// Bounds have 16 hex digits; the last range's upper bound is
// 0x10000000000000000 (2^64), the one value with 17.
func (r Range) Selector(key Key) string {
	end := "0x10000000000000000"
	if r.Index+1 < r.Count {
		end = fmt.Sprintf("0x%016x", Range{Index: r.Index + 1, Count: r.Count}.Start())
	}
	return fmt.Sprintf("shardRange(%s, '0x%016x', '%s')", key, r.Start(), end)
}

// Matches reports whether obj's key field hashes into the range: what a
// server applying the range's Selector returns.
func (r Range) Matches(key Key, obj runtime.Object) (bool, error) {
	h, err := HashObject(key, obj)
	if err != nil {
		return false, err
	}
	return r.Contains(h), nil
}

// Hash is the FNV-1a 64-bit hash of value, the hash KEP-5866 uses.
func Hash(value string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(value))
	return h.Sum64()
}

// HashObject is the hash of obj's key field. It fails for an object
// without metadata and for a key other than KeyUID and KeyNamespace.
func HashObject(key Key, obj runtime.Object) (uint64, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0, fmt.Errorf("sharding: reading the shard key %s: %w", key, err)
	}
	switch key {
	case KeyUID:
		return Hash(string(m.GetUID())), nil
	case KeyNamespace:
		return Hash(m.GetNamespace()), nil
	}
	return 0, fmt.Errorf("sharding: unsupported shard key %q (want %s or %s)", key, KeyUID, KeyNamespace)
}
