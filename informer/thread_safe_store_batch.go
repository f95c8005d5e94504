package informer

import (
	"fmt"
	"time"

	"k8s.io/klog/v2"

	utiltrace "k8s.io/utils/trace"
)

// batchResult is what applying one delta of a batch did to the store: the
// object stored before under its key, and the index function's error if
// the write was refused.
type batchResult struct {
	old     any
	existed bool
	err     error
}

// applyBatch writes a batch of deltas of distinct keys (keys[i] is the key
// of deltas[i]) under one lock, as client-go's batch processing does with
// a Get per delta followed by one Transaction: Deleted removes the key,
// any other type stores the object. results[i] receives what was stored
// before deltas[i] and its error. The resource version of the last
// applied delta is recorded. Every delta type must be one of Added,
// Updated, Replaced, Sync and Deleted.
func (m *threadSafeMap) applyBatch(keys []string, deltas []Delta, results []batchResult) {
	if !traceEnabled() {
		m.applyBatchLocking(keys, deltas, results)
		return
	}
	start := time.Now()
	m.applyBatchLocking(keys, deltas, results)
	logSlowTransaction(start, len(deltas))
}

// applyBatchLocking is applyBatch's work under the lock.
func (m *threadSafeMap) applyBatchLocking(keys []string, deltas []Delta, results []batchResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	last := -1
	for i, d := range deltas {
		key := keys[i]
		old, existed := m.items[key]
		results[i] = batchResult{old: old, existed: existed}
		if d.Type == Deleted {
			m.deleteLocked(key)
		} else if err := m.replaceLocked(key, old, d.Object); err != nil {
			results[i].err = err
			continue
		}
		last = i
	}
	if last >= 0 {
		if rv, ok := resourceVersionOf(deltas[last].Object); ok {
			m.setRVLocked(rv)
		}
	}
}

// traceEnabled reports whether a trace would be logged: k8s.io/utils/trace
// logs only at klog verbosity 2 or more, so below it nothing is timed for
// one.
func traceEnabled() bool { return klog.V(2).Enabled() }

// logSlowTransaction logs the "ThreadSafeMap Transaction Process" trace of
// a batch of n writes that began at start if it took 500ms per write (at
// most 5s) or more. The trace is built only then.
func logSlowTransaction(start time.Time, n int) {
	took := time.Since(start)
	if took < min(500*time.Millisecond*time.Duration(n), 5*time.Second) {
		return
	}
	trace := utiltrace.New("ThreadSafeMap Transaction Process",
		utiltrace.Field{Key: "Size", Value: n},
		utiltrace.Field{Key: "Reason", Value: "Slow batch process due to too many items"},
		utiltrace.Field{Key: "Started", Value: start})
	trace.Step("transaction applied", utiltrace.Field{Key: "Took", Value: took})
	trace.Log()
}

// batchError is the error of a batch some of whose writes were refused,
// worded as client-go words the TransactionError of its Transaction.
func batchError(results []batchResult) error {
	var errs []error
	ok := 0
	for _, r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
		} else {
			ok++
		}
	}
	if errs == nil {
		return nil
	}
	txErr := &TransactionError{TotalTransactions: len(results), Errors: errs}
	txErr.SuccessfulIndices = make([]int, 0, ok)
	for i, r := range results {
		if r.err == nil {
			txErr.SuccessfulIndices = append(txErr.SuccessfulIndices, i)
		}
	}
	return fmt.Errorf("not all items in the batch successfully processed: %s", txErr.Error())
}
