package ringbuffer

import (
	"runtime"
	"slices"
	"testing"
	"weak"
)

func TestZeroValueGrowsTo16(t *testing.T) {
	var r Ring[int]
	if got := r.Cap(); got != 0 {
		t.Fatalf("Cap() of zero ring = %d, want 0", got)
	}
	r.WriteOne(1)
	if got := r.Cap(); got != 16 {
		t.Fatalf("Cap() after first write = %d, want 16", got)
	}
}

func TestGrowthDoublesAndKeepsOrderAcrossWrap(t *testing.T) {
	r := New[int](4)
	// Move beg to 2 so that the pending region wraps before growing.
	r.WriteOne(-1)
	r.WriteOne(-2)
	r.ReadOne()
	r.ReadOne()
	for i := range 4 {
		r.WriteOne(i) // slots 2,3,0,1: wraps
	}
	if r.Cap() != 4 {
		t.Fatalf("Cap() = %d, want 4 before growth", r.Cap())
	}
	r.WriteOne(4)
	if r.Cap() != 8 {
		t.Fatalf("Cap() = %d, want 8 after growth", r.Cap())
	}
	if got, want := slices.Collect(r.All()), []int{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("All() = %v, want %v", got, want)
	}
	var got []int
	for {
		v, ok := r.ReadOne()
		if !ok {
			break
		}
		got = append(got, v)
	}
	if want := []int{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("reads = %v, want %v", got, want)
	}
}

func TestShrinkAfterBurst(t *testing.T) {
	r := New[int](4)
	for i := range 64 {
		r.WriteOne(i)
	}
	if r.Cap() != 64 {
		t.Fatalf("Cap() = %d, want 64", r.Cap())
	}
	// Expected capacity after each read: halve whenever Len <= Cap/4,
	// never below the initial size 4.
	var caps []int
	for range 64 {
		r.ReadOne()
		if len(caps) == 0 || caps[len(caps)-1] != r.Cap() {
			caps = append(caps, r.Cap())
		}
	}
	if want := []int{64, 32, 16, 8, 4}; !slices.Equal(caps, want) {
		t.Fatalf("capacities while draining = %v, want %v", caps, want)
	}
	// 48 reads leave 16 = 64/4 pending: the first halving happens exactly there.
	r2 := New[int](4)
	for i := range 64 {
		r2.WriteOne(i)
	}
	for range 47 {
		r2.ReadOne()
	}
	if r2.Cap() != 64 || r2.Len() != 17 {
		t.Fatalf("after 47 reads Cap,Len = %d,%d, want 64,17", r2.Cap(), r2.Len())
	}
	r2.ReadOne()
	if r2.Cap() != 32 {
		t.Fatalf("after 48 reads Cap = %d, want 32", r2.Cap())
	}
	if v, _ := r2.Peek(); v != 48 {
		t.Fatalf("Peek() after shrink = %d, want 48", v)
	}
}

func TestZeroValueNeverShrinksBelow16(t *testing.T) {
	var r Ring[int]
	for i := range 100 {
		r.WriteOne(i)
	}
	for range 100 {
		r.ReadOne()
	}
	if r.Cap() != 16 {
		t.Fatalf("Cap() = %d, want 16", r.Cap())
	}
}

func TestPeekAndEmptyRead(t *testing.T) {
	r := New[string](2)
	if _, ok := r.Peek(); ok {
		t.Fatal("Peek() on empty ring returned ok")
	}
	if _, ok := r.ReadOne(); ok {
		t.Fatal("ReadOne() on empty ring returned ok")
	}
	r.WriteOne("a")
	r.WriteOne("b")
	if v, ok := r.Peek(); !ok || v != "a" {
		t.Fatalf("Peek() = %q,%v, want a,true", v, ok)
	}
	if r.Len() != 2 {
		t.Fatalf("Len() after Peek = %d, want 2", r.Len())
	}
}

func TestAllStopsEarly(t *testing.T) {
	r := New[int](4)
	for i := range 4 {
		r.WriteOne(i)
	}
	var got []int
	for v := range r.All() {
		got = append(got, v)
		if v == 1 {
			break
		}
	}
	if want := []int{0, 1}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestNegativeSize(t *testing.T) {
	r := New[int](-5)
	r.WriteOne(7)
	if v, ok := r.ReadOne(); !ok || v != 7 {
		t.Fatalf("ReadOne() = %d,%v, want 7,true", v, ok)
	}
}

// TestReadSlotDoesNotPin checks that a read value is no longer reachable
// through the ring: once the caller drops it, the GC can collect it.
func TestReadSlotDoesNotPin(t *testing.T) {
	type payload struct{ buf [64]byte }
	r := New[*payload](4)
	// Keep the ring from shrinking so the old slot stays in the same array.
	r.WriteOne(&payload{})
	p := &payload{}
	w := weak.Make(p)
	r.WriteOne(p)
	p = nil
	r.ReadOne() // the filler
	if got, _ := r.ReadOne(); got == nil {
		t.Fatal("ReadOne() returned nil")
	}
	// The result above was discarded; only the ring's slot could keep it.
	for range 5 {
		runtime.GC()
		if w.Value() == nil {
			return
		}
	}
	t.Fatal("value read from the ring is still reachable: its slot was not zeroed")
}

// TestUnreadSlotPins is the control for TestReadSlotDoesNotPin: a pending value
// stays reachable.
func TestUnreadSlotPins(t *testing.T) {
	type payload struct{ buf [64]byte }
	r := New[*payload](4)
	p := &payload{}
	w := weak.Make(p)
	r.WriteOne(p)
	p = nil
	runtime.GC()
	runtime.GC()
	if w.Value() == nil {
		t.Fatal("pending value was collected")
	}
	runtime.KeepAlive(r)
}

// TestRecurringBurstKeepsCapacity checks the hysteresis: the first burst
// drains back to the floor, a second one of the same size keeps the
// capacity it grew to, and the first smaller cycle gives it back.
func TestRecurringBurstKeepsCapacity(t *testing.T) {
	r := New[int](4)
	burst := func(n int) (grown, drained int) {
		for i := range n {
			r.WriteOne(i)
		}
		grown = r.Cap()
		for range n {
			r.ReadOne()
		}
		return grown, r.Cap()
	}
	var got [][2]int
	for _, n := range []int{50, 50, 50, 3, 50} {
		g, d := burst(n)
		got = append(got, [2]int{g, d})
	}
	want := [][2]int{{64, 4}, {64, 64}, {64, 64}, {64, 4}, {64, 4}}
	if !slices.Equal(got, want) {
		t.Fatalf("(grown, drained) capacities per burst = %v, want %v", got, want)
	}
	// Mid-drain of a recurring burst the capacity stays: 40 reads leave
	// 10 <= 64/4 pending, but the previous peak 50 needs more than 32.
	for i := range 50 {
		r.WriteOne(i)
	}
	for range 40 {
		r.ReadOne()
	}
	if r.Cap() != 64 || r.Len() != 10 {
		t.Fatalf("Cap,Len mid-drain = %d,%d, want 64,10", r.Cap(), r.Len())
	}
	if v, _ := r.Peek(); v != 40 {
		t.Fatalf("Peek() = %d, want 40", v)
	}
}

// TestFrontBackInPlace checks that Front and Back address the oldest and
// newest items, across a wrap, and that writes through them are seen.
func TestFrontBackInPlace(t *testing.T) {
	r := New[int](4)
	if r.Front() != nil || r.Back() != nil {
		t.Fatal("Front/Back of an empty ring are not nil")
	}
	for i := range 4 {
		r.WriteOne(i)
	}
	r.ReadOne()
	r.ReadOne()
	r.WriteOne(4) // wraps to slot 0
	if *r.Front() != 2 || *r.Back() != 4 {
		t.Fatalf("Front,Back = %d,%d, want 2,4", *r.Front(), *r.Back())
	}
	*r.Front() = 20
	*r.Back() = 40
	if got := slices.Collect(r.All()); !slices.Equal(got, []int{20, 3, 40}) {
		t.Fatalf("All() = %v, want [20 3 40]", got)
	}
}
