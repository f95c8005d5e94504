package ringbuffer

import (
	"slices"
	"testing"
)

// FuzzRing drives a Ring and a plain slice with the same operations and
// requires identical results. Each input byte is one operation: its low two
// bits choose write, read, peek or a full check of All, the rest is the
// value written.
func FuzzRing(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0, 1, 1, 2, 3})
	f.Add(uint8(4), slices.Repeat([]byte{0}, 100))
	f.Add(uint8(1), append(slices.Repeat([]byte{4}, 70), slices.Repeat([]byte{1}, 70)...))
	f.Add(uint8(2), slices.Repeat([]byte{0, 0, 1}, 50))
	f.Fuzz(func(t *testing.T, size uint8, ops []byte) {
		initial := int(size % 20)
		r := New[int](initial)
		var model []int
		var peak, prevPeak int
		hadItems := false
		for i, op := range ops {
			switch op % 4 {
			case 0:
				v := i<<8 | int(op)
				r.WriteOne(v)
				model = append(model, v)
			case 1:
				v, ok := r.ReadOne()
				if ok != (len(model) > 0) {
					t.Fatalf("op %d: ReadOne ok=%v with model len %d", i, ok, len(model))
				}
				if ok {
					if v != model[0] {
						t.Fatalf("op %d: ReadOne = %d, want %d", i, v, model[0])
					}
					model = model[1:]
				}
			case 2:
				v, ok := r.Peek()
				if ok != (len(model) > 0) || (ok && v != model[0]) {
					t.Fatalf("op %d: Peek = %d,%v, model %v", i, v, ok, model)
				}
			case 3:
				if got := slices.Collect(r.All()); !slices.Equal(got, model) {
					t.Fatalf("op %d: All = %v, want %v", i, got, model)
				}
			}
			if r.Len() != len(model) {
				t.Fatalf("op %d: Len = %d, want %d", i, r.Len(), len(model))
			}
			if r.Cap() < r.Len() {
				t.Fatalf("op %d: Cap %d < Len %d", i, r.Cap(), r.Len())
			}
			floor := initial
			if floor == 0 {
				floor = defaultSize
			}
			// The shrink rule with its hysteresis: above the floor, a
			// ring at most a quarter full is only as large as the
			// previous cycle's peak needed, and an empty one no larger.
			if r.Cap() > floor && r.Len() <= r.Cap()/4 && r.prevPeak <= r.Cap()/2 {
				t.Fatalf("op %d: Cap %d not shrunk with Len %d (floor %d, previous peak %d)", i, r.Cap(), r.Len(), floor, r.prevPeak)
			}
			// The model's own cycle peaks: the ring must track them.
			if len(model) > peak {
				peak = len(model)
			}
			if op%4 == 1 && len(model) == 0 && hadItems {
				prevPeak, peak = peak, 0
			}
			hadItems = len(model) > 0
			if r.prevPeak != prevPeak {
				t.Fatalf("op %d: previous peak %d, want %d", i, r.prevPeak, prevPeak)
			}
			// Every slot outside the pending region must be zero.
			for j := range r.Cap() - r.Len() {
				if v := r.data[r.index(r.Len()+j)]; v != 0 {
					t.Fatalf("op %d: free slot holds %d", i, v)
				}
			}
		}
	})
}
