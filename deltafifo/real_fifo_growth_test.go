package deltafifo

import (
	"runtime"
	"testing"
	"unsafe"
)

// A queue whose producer keeps ahead of its consumer (the pending count
// grows while deltas also leave) allocates at most about four slots per
// delta pending at its peak. Growing the slices with append cost ten: append
// grows a large slice by a quarter, and copies the popped slots along.
func TestRealFIFOGrowthAllocations(t *testing.T) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()})
	const peak = 1 << 16
	d := Delta{Type: Updated, Object: o("a", 1)}
	key := itemKey{key: "a", ok: true}
	slot := float64(unsafe.Sizeof(Delta{}) + unsafe.Sizeof(itemKey{}))

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f.mu.Lock()
	pushed := 0
	for f.lenLocked() < peak {
		// Three in, two out: the consumer keeps up with two thirds.
		for range 3 {
			f.appendItemLocked(key, d)
			pushed++
		}
		f.popFrontLocked()
		f.popFrontLocked()
	}
	f.mu.Unlock()
	runtime.ReadMemStats(&after)

	slots := float64(after.TotalAlloc-before.TotalAlloc) / slot
	t.Logf("%d deltas pushed, %d pending, %.0f slots allocated (%.2f per pending delta)", pushed, peak, slots, slots/peak)
	if limit := 4.5 * peak; slots > limit {
		t.Fatalf("%.0f slots allocated for a queue of %d, want at most %.0f", slots, peak, limit)
	}
}
