package listener

import (
	"testing"
	"time"
)

// FuzzFIFOQueue drives a fifoQueue and a slice with the same pushes, pops
// and resets and compares, after each step: what pops return, the length,
// the oldest enqueue time (rounded down to stampQuantum) and the stamp
// runs kept beside the ring (they add up to the length, and there are no
// more runs than pending notifications, so a drained queue holds none).
// Enqueue times move by the byte's high bits, sometimes backwards, as
// concurrent Distribute calls can hand them over.
func FuzzFIFOQueue(f *testing.F) {
	const (
		add, update, del, pop, check = 0, 2, 4, 5, 7
		sameMs                       = 0 << 3 // time does not move
		nextMs                       = 1 << 3
		back                         = 7 << 3 // time moves back
	)
	f.Add(uint8(0), []byte{add, add | sameMs, update | nextMs, pop, del | back, pop, pop, pop})
	f.Add(uint8(1), []byte{add | nextMs, add | nextMs, add, check, pop, pop, pop, check | 128, add})
	runs := make([]byte, 0, 300)
	for i := range 150 {
		runs = append(runs, byte(i%3)<<3|add, pop*byte(i%2))
	}
	f.Add(uint8(3), runs)
	f.Fuzz(func(t *testing.T, size uint8, ops []byte) {
		q := newFIFOQueue(int(size % 8))
		type entry struct {
			n  Notification
			at int64
		}
		var model []entry
		var now int64 = int64(time.Hour)
		for i, b := range ops {
			o := decodeQueueOp(b)
			// bits 3-5: 0 same time, 1-5 forward by that many half
			// milliseconds, 6 forward by a second, 7 back by 1.5 ms.
			switch d := int64(b >> 3 & 7); {
			case d == 6:
				now += int64(time.Second)
			case d == 7:
				now -= 3 * stampQuantum / 2
			default:
				now += d * stampQuantum / 2
			}
			switch o.op {
			case opAdd, opUpdate, opDelete:
				n := o.notification(i)
				if res := q.push(n, now); res != (pushResult{}) {
					t.Fatalf("op %d: push returned %+v", i, res)
				}
				model = append(model, entry{n: n, at: now - now%stampQuantum})
			case opPop:
				n, ok := q.pop()
				if ok != (len(model) > 0) || ok && n != model[0].n {
					t.Fatalf("op %d: pop = %+v,%v, model %v", i, n, ok, model)
				}
				if ok {
					model = model[1:]
				}
			case opCheck:
				if b&128 != 0 {
					q.reset()
					model = nil
				}
			}
			if q.len() != len(model) {
				t.Fatalf("op %d: len %d, model %d", i, q.len(), len(model))
			}
			at, ok := q.oldest()
			if ok != (len(model) > 0) || ok && at != model[0].at {
				t.Fatalf("op %d: oldest %d,%v, model %v", i, at, ok, model)
			}
			total := 0
			for r := range q.stamps.All() {
				if r.n <= 0 {
					t.Fatalf("op %d: stamp run of %d", i, r.n)
				}
				total += r.n
			}
			if total != q.r.Len() || q.stamps.Len() > q.r.Len() {
				t.Fatalf("op %d: %d stamp runs covering %d, ring holds %d", i, q.stamps.Len(), total, q.r.Len())
			}
		}
	})
}
