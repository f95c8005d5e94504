package listener

import "github.com/kfanout/fanout/ringbuffer"

// compactMin is the number of dead entries below which a coalesceQueue
// never compacts its ring.
const compactMin = 64

// centry is one pending notification of a coalesceQueue. Entries of one key
// are linked newest to oldest while pending, so that a merge always applies
// to the key's latest pending notification.
type centry struct {
	n      Notification
	at     int64
	key    string
	hasKey bool    // key is valid: the key function succeeded
	dead   bool    // cancelled by a merge, or popped
	prev   *centry // the key's previous pending entry
	next   *centry // the key's next pending entry
}

// coalesceQueue is the OverflowCoalesce buffer: in order like a fifoQueue
// while fewer than threshold notifications wait; from then on a notification
// whose key has a pending one is merged into it (see merge), so the queue
// holds at most threshold entries plus about one per object key. A merged
// entry keeps its place and enqueue time, so a key sits where its oldest
// pending notification was queued.
type coalesceQueue struct {
	keyFunc   func(obj any) (string, error)
	threshold int
	size      int

	r     *ringbuffer.Ring[*centry]
	byKey map[string]*centry // latest pending entry of each key
	live  int                // pending entries
	dead  int                // cancelled entries still in r
}

func newCoalesceQueue(size, threshold int, keyFunc func(obj any) (string, error)) *coalesceQueue {
	q := &coalesceQueue{keyFunc: keyFunc, threshold: threshold, size: size}
	q.reset()
	return q
}

func (q *coalesceQueue) reset() {
	q.r = ringbuffer.New[*centry](q.size)
	q.byKey = make(map[string]*centry)
	q.live, q.dead = 0, 0
}

func (q *coalesceQueue) len() int { return q.live }

func (q *coalesceQueue) push(n Notification, at int64) pushResult {
	key, err := q.keyFunc(n.Obj)
	if err != nil {
		q.append(&centry{n: n, at: at})
		return pushResult{keyErr: err}
	}
	latest := q.byKey[key]
	if latest != nil && q.live >= q.threshold {
		merged, outcome := merge(latest.n, n)
		switch outcome {
		case mergedOne:
			// Initial-list adds that went in and do not come out in
			// merged are finished now; count them before latest.n is
			// replaced.
			finished := initialAdds(latest.n) + initialAdds(n) - initialAdds(merged)
			latest.n = merged
			return pushResult{coalesced: 1, finishedInitial: finished}
		case cancelled:
			res := pushResult{coalesced: 2, finishedInitial: initialAdds(latest.n) + initialAdds(n)}
			q.cancel(latest)
			return res
		}
	}
	e := &centry{n: n, at: at, key: key, hasKey: true, prev: latest}
	if latest != nil {
		latest.next = e
	}
	q.byKey[key] = e
	q.append(e)
	return pushResult{}
}

func (q *coalesceQueue) append(e *centry) {
	q.r.WriteOne(e)
	q.live++
}

// cancel removes e, the latest pending entry of its key, from the queue.
func (q *coalesceQueue) cancel(e *centry) {
	e.dead = true
	e.n = Notification{}
	q.live--
	q.dead++
	if e.prev != nil {
		e.prev.next = nil
		q.byKey[e.key] = e.prev
		e.prev = nil
	} else {
		delete(q.byKey, e.key)
	}
	if q.dead >= compactMin && q.dead > q.live {
		q.compact()
	}
}

// compact rebuilds the ring without cancelled entries.
func (q *coalesceQueue) compact() {
	r := ringbuffer.New[*centry](max(q.size, q.live))
	for e, ok := q.r.ReadOne(); ok; e, ok = q.r.ReadOne() {
		if !e.dead {
			r.WriteOne(e)
		}
	}
	q.r, q.dead = r, 0
}

// head returns the oldest pending entry, discarding cancelled ones before it.
func (q *coalesceQueue) head() *centry {
	for {
		e, ok := q.r.Peek()
		if !ok {
			return nil
		}
		if !e.dead {
			return e
		}
		q.r.ReadOne()
		q.dead--
	}
}

func (q *coalesceQueue) pop() (Notification, bool) {
	e := q.head()
	if e == nil {
		return Notification{}, false
	}
	q.r.ReadOne()
	q.live--
	e.dead = true
	if e.hasKey {
		// e is its key's oldest pending entry: unlink it.
		if e.next != nil {
			e.next.prev = nil
			e.next = nil
		} else {
			delete(q.byKey, e.key)
		}
	}
	return e.n, true
}

func (q *coalesceQueue) oldest() (int64, bool) {
	if e := q.head(); e != nil {
		return e.at, true
	}
	return 0, false
}
