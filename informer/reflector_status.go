package informer

import (
	"sync"
	"sync/atomic"
	"time"
)

// fillStatus records how the reflector is doing at filling its store: a
// list or watch-list stream in progress, and the failed attempts since the
// store was last filled. The reflector's goroutine writes it; SyncStatus
// reads it from any goroutine.
type fillStatus struct {
	// items counts the objects received by the fill in progress: list
	// items page by page, or watch-list events.
	items atomic.Int64

	mu        sync.Mutex
	filling   bool      // a list or watch-list stream is running
	watchList bool      // ... and it is a watch-list stream
	since     time.Time // when it started
	filled    bool      // the store was filled at least once
	attempts  int       // failed fills since the store was last filled
	lastErr   error     // the newest of them
	lastErrAt time.Time
	nextRetry time.Time // when the next attempt starts; zero if unknown
}

// fillSnapshot is a copy of fillStatus.
type fillSnapshot struct {
	filling, watchList, filled bool
	since                      time.Time
	items                      int64
	attempts                   int
	lastErr                    error
	lastErrAt, nextRetry       time.Time
}

// begin records that a list (watchList false) or a watch-list stream
// starts now.
func (f *fillStatus) begin(now time.Time, watchList bool) {
	f.items.Store(0)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filling, f.watchList, f.since = true, watchList, now
	f.nextRetry = time.Time{}
}

// done records that the store was filled.
func (f *fillStatus) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filling, f.filled = false, true
	f.attempts, f.lastErr, f.lastErrAt, f.nextRetry = 0, nil, time.Time{}, time.Time{}
}

// failed records that the fill in progress failed with err at now; the
// next attempt starts at retry (zero if not known).
func (f *fillStatus) failed(err error, now, retry time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.filling {
		return // a watch error after the store was filled
	}
	f.filling = false
	f.attempts++
	f.lastErr, f.lastErrAt, f.nextRetry = err, now, retry
}

// retryAt records when the attempt after a failed one starts.
func (f *fillStatus) retryAt(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.attempts > 0 && !f.filling {
		f.nextRetry = t
	}
}

func (f *fillStatus) snapshot() fillSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fillSnapshot{
		filling: f.filling, watchList: f.watchList, filled: f.filled,
		since: f.since, items: f.items.Load(),
		attempts: f.attempts, lastErr: f.lastErr, lastErrAt: f.lastErrAt, nextRetry: f.nextRetry,
	}
}
