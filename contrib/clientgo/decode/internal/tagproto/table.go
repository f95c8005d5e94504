package tagproto

import "hash/maphash"

// Table hands out one string for equal bytes among the strings it holds:
// a bounded, direct-mapped cache whose slots come in pairs (a string may
// sit in either slot of its pair, the older one goes), so that a string
// repeated across objects is allocated once while it stays in the table,
// and a string seen once costs one slot until it is evicted. It keeps at
// most its size in strings alive. Not safe for concurrent use.
type Table struct {
	seed  maphash.Seed
	slots []string
	older []bool // per pair: whether its first slot is the older
	mask  uint64
}

// NewTable returns a table of about size strings (a power of two, at least
// two).
func NewTable(size int) *Table {
	n := 2
	for n < size {
		n *= 2
	}
	return &Table{seed: maphash.MakeSeed(), slots: make([]string, n), older: make([]bool, n/2), mask: uint64(n/2 - 1)}
}

// String returns the table's string for b, adding one if it has none.
func (t *Table) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	pair := maphash.Bytes(t.seed, b) & t.mask
	i := 2 * pair
	if t.slots[i] == string(b) {
		return t.slots[i]
	}
	if t.slots[i+1] == string(b) {
		return t.slots[i+1]
	}
	s := string(b)
	if t.older[pair] {
		t.slots[i] = s
	} else {
		t.slots[i+1] = s
	}
	t.older[pair] = !t.older[pair]
	return s
}
