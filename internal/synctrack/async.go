package synctrack

import "sync"

// AsyncTracker tells when the initial list has been fully processed by a
// consumer that handles keys concurrently or out of order (a pool of
// workers).
//
// Start records a key of the initial list, Finished removes it (Finished for
// a key that was never started is harmless, which suits queues that cannot
// carry the isInInitialList flag), and UpstreamHasSynced records that the
// upstream has synced. The tracker is done when the upstream has synced and
// no started key is still waiting. All methods are safe for concurrent use.
type AsyncTracker[T comparable] struct {
	name string

	mu       sync.Mutex
	waiting  map[T]struct{} // keys started and not finished
	upstream bool           // set once by UpstreamHasSynced

	doneOnce sync.Once
	done     chan struct{} // closed once synced
}

// NewAsyncTracker returns a tracker named name (see Name).
func NewAsyncTracker[T comparable](name string) *AsyncTracker[T] {
	return &AsyncTracker[T]{name: name, done: make(chan struct{})}
}

// Start records that key, part of the initial list, is about to be
// processed.
func (t *AsyncTracker[T]) Start(key T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting == nil {
		t.waiting = make(map[T]struct{})
	}
	t.waiting[key] = struct{}{}
}

// Finished records that key has been processed.
func (t *AsyncTracker[T]) Finished(key T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.waiting, key)
	if t.upstream && len(t.waiting) == 0 {
		t.markDone()
	}
}

// UpstreamHasSynced records that the upstream has synced. It must be called
// after every initial-list key has been passed to Start.
func (t *AsyncTracker[T]) UpstreamHasSynced() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.upstream = true
	if len(t.waiting) == 0 {
		t.markDone()
	}
}

// HasSynced reports whether the upstream has synced and every started key
// has finished. Once true it stays true.
func (t *AsyncTracker[T]) HasSynced() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// Done returns a channel that is closed when HasSynced becomes true.
func (t *AsyncTracker[T]) Done() <-chan struct{} { return t.done }

// Name returns the name given to NewAsyncTracker.
func (t *AsyncTracker[T]) Name() string { return t.name }

func (t *AsyncTracker[T]) markDone() {
	t.doneOnce.Do(func() { close(t.done) })
}
