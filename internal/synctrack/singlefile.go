package synctrack

import (
	"sync"
	"sync/atomic"
)

// SingleFileTracker tells when the initial list has been fully processed by a
// consumer that handles items one at a time, in order (a listener).
//
// The producer calls Start before handing over each initial-list item, the
// consumer calls Finished after processing it, and whoever watches the
// upstream calls UpstreamHasSynced once the upstream has synced. The tracker
// is done when the upstream has synced and every started item has finished.
// All methods are safe for concurrent use.
type SingleFileTracker struct {
	name     string
	count    atomic.Int64 // started but not finished items
	upstream atomic.Bool  // set once by UpstreamHasSynced

	doneOnce sync.Once
	done     chan struct{} // closed once synced
}

// NewSingleFileTracker returns a tracker named name (see Name).
func NewSingleFileTracker(name string) *SingleFileTracker {
	return &SingleFileTracker{name: name, done: make(chan struct{})}
}

// Start records one more initial-list item on its way to the consumer. It
// must be called before the item can reach the consumer.
func (t *SingleFileTracker) Start() {
	t.count.Add(1)
}

// Finished records that the consumer has processed one initial-list item.
// Calling it more often than Start is a logic error that would make HasSynced
// lie, so it panics when the count goes below zero.
func (t *SingleFileTracker) Finished() {
	c := t.count.Add(-1)
	if c < 0 {
		panic("synctrack: negative counter; this logic error means HasSynced may return incorrect value")
	}
	if c == 0 && t.upstream.Load() {
		t.markDone()
	}
}

// UpstreamHasSynced records that the upstream has synced. It must be called
// after every initial-list item has been passed to Start; calling it again
// has no further effect.
func (t *SingleFileTracker) UpstreamHasSynced() {
	t.upstream.Store(true)
	if t.count.Load() == 0 {
		t.markDone()
	}
}

// HasSynced reports whether the upstream has synced and every initial-list
// item has been processed. Once true it stays true.
func (t *SingleFileTracker) HasSynced() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// Done returns a channel that is closed when HasSynced becomes true.
func (t *SingleFileTracker) Done() <-chan struct{} { return t.done }

// Name returns the name given to NewSingleFileTracker.
func (t *SingleFileTracker) Name() string { return t.name }

func (t *SingleFileTracker) markDone() {
	t.doneOnce.Do(func() { close(t.done) })
}

// Pending returns the number of items started and not yet finished: for a
// listener, the initial-list notifications its handler has not returned
// from.
func (t *SingleFileTracker) Pending() int64 { return t.count.Load() }
