package deltafifo

import (
	"runtime"
	"testing"
	"unsafe"
)

// A queue whose producer keeps ahead of its consumer (the pending count
// grows while deltas also leave) grows its slices by doubling: everything
// it allocated on the way adds up to at most twice the slots it ends with,
// and it ends with fewer than four slots per pending delta. Growing with
// append allocated about five times the final slots: append grows a large
// slice by a quarter, and copies the popped slots along.
func TestRealFIFOGrowthAllocations(t *testing.T) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()})
	const peak = 50_000
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
	final := cap(f.items)
	f.mu.Unlock()
	runtime.ReadMemStats(&after)

	slots := float64(after.TotalAlloc-before.TotalAlloc) / slot
	t.Logf("%d deltas pushed, %d pending, %d slots at the end, %.0f slots allocated (%.2f per final slot)",
		pushed, peak, final, slots, slots/float64(final))
	if limit := 2.05 * float64(final); slots > limit {
		t.Errorf("%.0f slots allocated to end with %d, want at most %.0f", slots, final, limit)
	}
	if final >= 4*peak {
		t.Errorf("%d slots for %d pending deltas, want fewer than %d", final, peak, 4*peak)
	}
}
