package listener

import (
	"fmt"
	"testing"
)

// queueOp is one operation of a queue fuzz input, decoded from a byte:
// bits 0-2 choose the operation, bits 3-5 the object key (modulo
// fuzzKeys, where the last is an object that cannot be hasKey) and bit 6
// the initial-list flag of an add.
type queueOp struct {
	op      uint8 // opAdd, opUpdate, opDelete, opPop, opCheck
	key     int
	initial bool
	raw     byte
}

const (
	opAdd uint8 = iota
	opUpdate
	opDelete
	opPop
	opCheck // inspect without changing; with bit 7 set, reset
)

// fuzzKeys is the number of object keys a fuzz input uses; key
// fuzzKeys-1 stands for an object whose key cannot be computed.
const fuzzKeys = 5

func decodeQueueOp(b byte) queueOp {
	op := [8]uint8{opAdd, opAdd, opUpdate, opUpdate, opDelete, opPop, opPop, opCheck}[b&7]
	return queueOp{op: op, key: int(b>>3&7) % fuzzKeys, initial: b&64 != 0, raw: b}
}

// fuzzObj returns the object of key k at version v: "k@v", or, for the
// key that cannot be hasKey, the int v (strKey rejects it).
func fuzzObj(k, v int) any {
	if k == fuzzKeys-1 {
		return v
	}
	return fmt.Sprintf("%c@%d", 'a'+k, v)
}

// notificationFor builds the notification of op at step v.
func (o queueOp) notification(v int) Notification {
	switch o.op {
	case opAdd:
		return NewAdd(fuzzObj(o.key, v), o.initial)
	case opUpdate:
		return NewUpdate(fuzzObj(o.key, -v), fuzzObj(o.key, v))
	default:
		return NewDelete(fuzzObj(o.key, v))
	}
}

// coalesceModel is the reference for coalesceQueue: the pending entries in
// order (cancelled ones removed at once), merged by the rules of DESIGN.md
// section 4, written out here independently of merge.
type coalesceModel struct {
	threshold int
	entries   []modelEntry
}

type modelEntry struct {
	n      Notification
	at     int64
	key    int
	hasKey bool
}

// latest returns the index of the latest pending entry of key, or -1.
func (m *coalesceModel) latest(key int) int {
	for i := len(m.entries) - 1; i >= 0; i-- {
		if e := m.entries[i]; e.hasKey && e.key == key {
			return i
		}
	}
	return -1
}

// push applies n and returns how many notifications were merged away.
func (m *coalesceModel) push(n Notification, key int, hasKey bool, at int64) (coalesced int) {
	if i := m.latest(key); hasKey && i >= 0 && len(m.entries) >= m.threshold {
		e := &m.entries[i].n
		switch {
		case e.Kind == Add && n.Kind == Update:
			*e = Notification{Kind: Add, Obj: n.Obj, IsInInitialList: e.IsInInitialList}
			return 1
		case e.Kind == Add && n.Kind == Add:
			*e = Notification{Kind: Add, Obj: n.Obj, IsInInitialList: e.IsInInitialList || n.IsInInitialList}
			return 1
		case e.Kind == Add && n.Kind == Delete:
			m.entries = append(m.entries[:i], m.entries[i+1:]...)
			return 2
		case e.Kind == Update && n.Kind == Update:
			*e = Notification{Kind: Update, OldObj: e.OldObj, Obj: n.Obj}
			return 1
		case e.Kind == Update && n.Kind == Delete, e.Kind == Delete && n.Kind == Delete:
			*e = Notification{Kind: Delete, Obj: n.Obj}
			return 1
		}
	}
	m.entries = append(m.entries, modelEntry{n: n, at: at, key: key, hasKey: hasKey})
	return 0
}

// pendingInitial is the number of pending initial-list adds.
func (m *coalesceModel) pendingInitial() int {
	c := 0
	for _, e := range m.entries {
		c += initialAdds(e.n)
	}
	return c
}

// FuzzCoalesceQueue drives a coalesceQueue and coalesceModel with the same
// pushes and pops and compares, after each step: what pops return (order
// and merge results), the length, the oldest enqueue time, the Coalesced
// count, the sync count (every initial-list add pushed is counted finished
// exactly once, by a merge or by its pop) and what the queue still holds
// (its key index has one entry per pending key, and cancelled entries are
// cleared and compacted away).
func FuzzCoalesceQueue(f *testing.F) {
	const (
		a, b   = 0 << 3, 1 << 3
		bad    = 4 << 3
		init   = 64
		add    = 0
		update = 2
		del    = 4
		pop    = 5
		check  = 7
	)
	// Each merge rule at threshold 0, then under a threshold.
	f.Add(uint8(0), uint8(0), []byte{a | add, a | add | init, check, pop, pop})          // add+initial add
	f.Add(uint8(0), uint8(0), []byte{a | add | init, a | add, pop})                      // initial add+add
	f.Add(uint8(0), uint8(0), []byte{a | add | init, a | update, check, pop})            // add+update
	f.Add(uint8(0), uint8(0), []byte{a | add | init, a | del, check, pop})               // add+delete
	f.Add(uint8(0), uint8(0), []byte{a | update, a | update, a | update, pop})           // update+update
	f.Add(uint8(0), uint8(0), []byte{a | update, a | del, pop})                          // update+delete
	f.Add(uint8(0), uint8(0), []byte{a | del, a | del, pop})                             // delete+delete
	f.Add(uint8(0), uint8(0), []byte{a | del, a | add, a | update, a | del, pop, pop})   // delete+add kept, then merges
	f.Add(uint8(0), uint8(0), []byte{a | update, a | add, b | del, b | add | init, pop}) // update+add kept
	f.Add(uint8(0), uint8(0), []byte{bad | add | init, bad | del, pop, pop})             // unkeyable
	f.Add(uint8(2), uint8(1), []byte{a | add, b | add, a | update, a | del, pop, check}) // threshold 2
	many := make([]byte, 0, 400)
	for i := range 140 {
		many = append(many, byte(i%4)<<3|add, byte(i%4)<<3|del) // cancellations: compaction
	}
	f.Add(uint8(1), uint8(3), append(many, pop, pop, check|128, a|add))
	f.Fuzz(func(t *testing.T, threshold, size uint8, ops []byte) {
		th := int(threshold % 6)
		q := newCoalesceQueue(int(size%8), th, strKey)
		m := &coalesceModel{threshold: th}
		started, finished := 0, 0
		for i, b := range ops {
			o := decodeQueueOp(b)
			at := int64(i)
			switch o.op {
			case opAdd, opUpdate, opDelete:
				n := o.notification(i)
				started += initialAdds(n)
				hasKey := o.key != fuzzKeys-1
				res := q.push(n, at)
				want := m.push(n, o.key, hasKey, at)
				if res.coalesced != want {
					t.Fatalf("op %d push %+v: coalesced %d, model %d", i, n, res.coalesced, want)
				}
				if (res.keyErr != nil) == hasKey {
					t.Fatalf("op %d push %+v: key error %v", i, n, res.keyErr)
				}
				finished += res.finishedInitial
			case opPop:
				n, ok := q.pop()
				if ok != (len(m.entries) > 0) {
					t.Fatalf("op %d pop: ok=%v with %d in the model", i, ok, len(m.entries))
				}
				if ok {
					if want := m.entries[0].n; n != want {
						t.Fatalf("op %d pop = %+v, model %+v", i, n, want)
					}
					m.entries = m.entries[1:]
					finished += initialAdds(n)
				}
			case opCheck:
				if o.raw&128 != 0 {
					q.reset()
					m.entries = nil
					started, finished = 0, 0
				}
			}
			if q.len() != len(m.entries) {
				t.Fatalf("op %d: len %d, model %d", i, q.len(), len(m.entries))
			}
			at, ok := q.oldest()
			if ok != (len(m.entries) > 0) || ok && at != m.entries[0].at {
				t.Fatalf("op %d: oldest %d,%v, model %v", i, at, ok, m.entries)
			}
			if pending := m.pendingInitial(); started != finished+pending {
				t.Fatalf("op %d: %d initial-list adds pushed, %d finished, %d pending: counted %+d", i, started, finished, pending, finished+pending-started)
			}
			checkCoalesceMemory(t, i, q, m)
		}
	})
}

// checkCoalesceMemory checks what q holds beyond its pending entries: one
// index entry per pending key, the ring's dead entries cleared and counted,
// and no more dead entries than compaction allows after a cancel.
func checkCoalesceMemory(t *testing.T, step int, q *coalesceQueue, m *coalesceModel) {
	t.Helper()
	keys := map[string]bool{}
	for _, e := range m.entries {
		if e.hasKey {
			k, _ := strKey(e.n.Obj)
			keys[k] = true
		}
	}
	if len(q.byKey) != len(keys) {
		t.Fatalf("op %d: key index holds %d keys, %d pending", step, len(q.byKey), len(keys))
	}
	dead := 0
	for e := range q.r.All() {
		if e.dead {
			dead++
			if e.n != (Notification{}) || e.prev != nil || e.next != nil {
				t.Fatalf("op %d: a cancelled entry still holds %+v", step, e)
			}
		}
	}
	if dead != q.dead || q.r.Len() != q.live+q.dead {
		t.Fatalf("op %d: ring %d entries, %d dead; queue counts %d live %d dead", step, q.r.Len(), dead, q.live, q.dead)
	}
}
