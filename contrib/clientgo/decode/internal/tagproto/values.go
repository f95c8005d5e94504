package tagproto

import (
	"bytes"
	"hash/maphash"
	"reflect"
	"unsafe"
)

// Values shares decoded values among the objects a Decoder builds: a
// sub-message, or the whole run of a repeated field or map, whose encoding
// equals one decoded before gets the value decoded then (the same pointer,
// slice or map; a struct field gets a copy of the struct, which shares
// what the struct points to), so that what objects have in common is built
// and kept once. Like Table it is a bounded cache with paired slots, and
// it holds the encodings it compares against; a value enters it only the
// second time its encoding is met (a filter of hashes remembers the first
// time), so that values met once, most of them, cost no copy and no
// slot. Not safe for concurrent use.
//
// Objects built with Values share memory, so they must be treated as
// read-only, as an informer's cache already requires.
type Values struct {
	seed  maphash.Seed
	slots []valueSlot
	older []bool
	mask  uint64
	seen  []uint64 // hashes met once, direct-mapped, eight per slot
	held  int      // bytes of encodings held, at most maxHeld
}

type valueSlot struct {
	f   *field
	enc []byte
	val reflect.Value // a pointer to the struct, or a cell holding the slice or map
}

// minShared is the shortest encoding worth sharing: below it the value is
// cheaper to build than to look up. maxShared is the longest: longer ones
// (a list's items) seldom repeat, and the cache would hold a copy.
// maxHeld bounds the bytes of encodings a Values holds: past it, new
// values are not kept until older ones are evicted.
const (
	minShared = 8
	maxShared = 16 << 10
	maxHeld   = 32 << 20
)

// NewValues returns a cache of about size values (a power of two, at
// least two).
func NewValues(size int) *Values {
	n := 2
	for n < size {
		n *= 2
	}
	return &Values{seed: maphash.MakeSeed(), slots: make([]valueSlot, n), older: make([]bool, n/2), mask: uint64(n/2 - 1), seen: make([]uint64, 8*n)}
}

func (v *Values) hash(f *field, enc []byte) uint64 {
	return maphash.Bytes(v.seed, enc) ^ uint64(uintptr(unsafe.Pointer(f)))*0x9e3779b97f4a7c15
}

// get returns the value decoded before from enc as field f, whose hash is
// h. Without one, keep says whether the value about to be decoded should
// be put: whether h was met before.
func (v *Values) get(f *field, enc []byte, h uint64) (val reflect.Value, ok, keep bool) {
	i := 2 * (h & v.mask)
	for _, s := range v.slots[i : i+2] {
		if s.f == f && bytes.Equal(s.enc, enc) {
			return s.val, true, false
		}
	}
	seen := &v.seen[h&uint64(len(v.seen)-1)]
	if *seen == h {
		return reflect.Value{}, false, true
	}
	*seen = h
	return reflect.Value{}, false, false
}

// put records val as decoded from enc as field f, whose hash is h,
// evicting the older of its pair.
func (v *Values) put(f *field, enc []byte, h uint64, val reflect.Value) {
	i := 2 * (h & v.mask)
	p := i / 2
	if !v.older[p] {
		i++
	}
	if v.held-len(v.slots[i].enc)+len(enc) > maxHeld {
		return
	}
	v.older[p] = !v.older[p]
	v.held += len(enc) - len(v.slots[i].enc)
	v.slots[i] = valueSlot{f: f, enc: bytes.Clone(enc), val: val}
}

// sharedRun reports whether f's values come as a run of fields with one
// tag (repeated fields and maps), which Values shares whole.
func sharedRun(f *field) bool {
	switch f.kind {
	case kStrings, kMessages, kMapStrings, kMapBytes, kMapMessages:
		return true
	}
	return false
}

// sharedMessage reports whether f is a sub-message Values shares.
func sharedMessage(f *field) bool {
	return (f.kind == kMessage || f.kind == kPtrMessage) && !f.elem.own
}

// runEnd returns where the run of length-delimited fields with tag
// starting at b[i:] ends, and how many fields it holds, or -1 if a field
// of it is malformed (the decoder then reports the error).
func runEnd(b []byte, i int, tag uint64) (end, n int) {
	for i < len(b) {
		t, j, err := varint(b, i)
		if err != nil {
			return -1, 0
		}
		if t != tag {
			return i, n
		}
		_, e, err := span(b, j)
		if err != nil {
			return -1, 0
		}
		i, n = e, n+1
	}
	return i, n
}

// canonical reports whether b lists p's fields as generated code writes
// them: in increasing field order, a field that is not repeated once, a
// repeated field's values together. Only then does sharing a run or a
// sub-message give what decoding it would: a second occurrence would
// merge into, or append to, a shared value.
func canonical(p *plan, b []byte) bool {
	prev, prevRun := int32(0), false
	for i := 0; i < len(b); {
		start := i
		tag, _, err := varint(b, i)
		if err != nil {
			return false
		}
		num := int32(tag >> 3)
		if num < prev || num == prev && !prevRun {
			return false
		}
		if num != prev {
			prevRun = false
			if int(num) < len(p.fields) && p.fields[num] != nil {
				prevRun = sharedRun(p.fields[num]) || p.fields[num].kind == kInt32s || p.fields[num].kind == kInt64s || p.fields[num].kind == kBools
			}
			prev = num
		}
		n, err := skip(b[start:])
		if err != nil || n <= 0 {
			return false
		}
		i = start + n
	}
	return true
}
