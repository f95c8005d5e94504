package transform

import (
	"hash/maphash"
	"math/bits"
	"reflect"
	"unsafe"
	"weak"
)

// shareSeenSlots is the size of a sharer's seen filter: the hashes of
// values met once, so that only values met twice enter the table (a
// value met once, such as a Pod's UID, would cost a table entry and save
// nothing). A power of two; 16384 slots are 128 KiB per transform. The
// slots are paired: a hash may sit in either slot of its pair, so two
// values whose hashes share a pair, met in turn (a label key and its
// value), do not keep evicting each other and both become canonical.
const shareSeenSlots = 1 << 14

// shareSeed is the seed of every sharer's hashes. Hashes only pick
// candidates: equality is always checked in full.
var shareSeed = maphash.MakeSeed()

// shareKey names a canonical value: its type and content hash.
type shareKey struct {
	t reflect.Type
	h uint64
}

// shareRef is a weak reference to a canonical string, slice, map or
// pointed-to value: the address of its first byte and, for strings and
// slices, its length. The table does not keep the value alive: once no
// cached object refers to it, the reference goes nil and the entry is
// removed by the next sweep.
type shareRef struct {
	p weak.Pointer[byte]
	n int
}

// shareTable maps content hashes to the canonical values of a sharer.
// It is not safe for concurrent use (the sharer's lock guards it).
//
// It is not unique.Make(s).Value(): the unique package drops a value
// once its Handle is unreachable, so a string whose Handle was not kept
// stops being shared at the next GC although cached objects still hold
// it; and unique takes only comparable values, not slices or maps.
type shareTable struct {
	m map[shareKey]shareRef
	// sweepAt is the table size at which dead entries are next removed:
	// twice the live entries found by the last sweep, so that the table
	// holds at most about twice the live canonical values and sweeping
	// costs O(1) amortised per insertion.
	sweepAt int
	seen    [shareSeenSlots]uint64
}

// seenBefore reports whether h is in its pair of slots (it was met, and
// two other hashes of the pair have not been recorded since), and records
// it there.
func (t *shareTable) seenBefore(h uint64) bool {
	i := h & (shareSeenSlots - 2) // the pair's first slot
	pair := t.seen[i : i+2 : i+2]
	if pair[0] == h || pair[1] == h {
		return true
	}
	pair[1] = pair[0] // the older one goes
	pair[0] = h
	return false
}

// get returns the live canonical value of type typ and hash h, if any.
func (t *shareTable) get(typ reflect.Type, h uint64) (unsafe.Pointer, int, bool) {
	r, ok := t.m[shareKey{typ, h}]
	if !ok {
		return nil, 0, false
	}
	p := r.p.Value()
	if p == nil {
		delete(t.m, shareKey{typ, h})
		return nil, 0, false
	}
	return unsafe.Pointer(p), r.n, true
}

// put makes the value at p (of length n) the canonical value of typ and h.
func (t *shareTable) put(typ reflect.Type, h uint64, p unsafe.Pointer, n int) {
	if t.m == nil {
		t.m = map[shareKey]shareRef{}
		t.sweepAt = 1024
	}
	t.m[shareKey{typ, h}] = shareRef{weak.Make((*byte)(p)), n}
	if len(t.m) >= t.sweepAt {
		for k, r := range t.m {
			if r.p.Value() == nil {
				delete(t.m, k)
			}
		}
		t.sweepAt = max(1024, 2*len(t.m))
	}
}

// mixHash combines a hash with the next value.
func mixHash(h, v uint64) uint64 {
	hi, lo := bits.Mul64(h^v, 0x9e3779b97f4a7c15)
	return hi ^ lo ^ v
}

// Hashes of values that carry no content of their own.
const (
	hashNil   = 0x6e696c
	hashEmpty = 0x656d707479
)
