package deltafifo

import "github.com/kfanout/fanout/internal/queueaccess"

// popped and poppedFunc are what the queues' keyed pop hands its consumer.
type (
	popped     = queueaccess.Popped[Delta]
	poppedFunc = queueaccess.Func[Delta]
)

// The informer reaches the keyed pop and tryLen of DeltaFIFO and RealFIFO
// through package queueaccess, so that they are not part of the queues'
// exported API.
func init() {
	queueaccess.Register(func(q any) (queueaccess.Access[Delta], bool) {
		switch q := q.(type) {
		case *DeltaFIFO:
			return queueaccess.Access[Delta]{Pop: q.popKeyed, TryLen: q.tryLen}, true
		case *RealFIFO:
			return queueaccess.Access[Delta]{Pop: q.popKeyed, TryLen: q.tryLen}, true
		}
		return queueaccess.Access[Delta]{}, false
	})
}

// tryLen returns the number of keys queued, like Len, unless the queue's
// lock is held (by Pop's process call, for example), when it reports false
// at once instead of waiting. It is for observers, such as a debug page,
// that must not wait behind a stalled consumer; the informer reaches it
// through internal/queueaccess.
func (f *DeltaFIFO) tryLen() (n int, ok bool) {
	if !f.mu.TryLock() {
		return 0, false
	}
	defer f.mu.Unlock()
	return len(f.queue) - f.head, true
}

// tryLen returns the number of items queued, like Len, unless the queue's
// lock is held, when it reports false at once instead of waiting.
func (f *RealFIFO) tryLen() (n int, ok bool) {
	if !f.mu.TryLock() {
		return 0, false
	}
	defer f.mu.Unlock()
	return len(f.items) - f.head, true
}
