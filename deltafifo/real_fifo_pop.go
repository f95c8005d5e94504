package deltafifo

import (
	"time"

	utiltrace "k8s.io/utils/trace"
)

// Pop waits until a delta is queued, removes the oldest, and calls process
// with it wrapped in a one-element Deltas and whether it belongs to the
// initial population. It returns that Deltas and process's error; an error
// drops the delta. Once the queue is closed and empty, Pop returns
// ErrFIFOClosed without calling process.
//
// process runs under the queue's lock, unless UnlockWhileProcessing is set
// and fewer than 2000 deltas are queued: then producers may add while it
// runs, so process must not rely on the queue standing still. Pop is meant
// for a single consumer goroutine. The delta counts as delivered for
// HasSynced after process returns.
func (f *RealFIFO) Pop(process PopProcessFunc) (interface{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.waitLocked() {
		return nil, ErrFIFOClosed
	}
	initial := !f.sync.hasSynced()
	item := f.items[0]
	f.items[0] = Delta{}
	f.items = f.items[1:]
	defer f.sync.delivered(1)

	if depth := len(f.items); depth > 10 {
		defer f.traceSlow("RealFIFO Pop Process", time.Now(), item, depth, 0)
	}
	f.metrics.QueuedItems.Set(float64(len(f.items)))

	out := Deltas{item}
	return out, f.processLocked(func() error { return process(out, initial) })
}

// PopBatch waits until a delta is queued and removes a run of deltas from
// the front of the queue: at most 1000, all of batchable types (Added,
// Updated, Deleted, Replaced, Sync) and distinct keys, none past the end of
// the initial population while it is being delivered. The run ends before
// the first delta of another type (such a delta at the front is taken
// alone) and before a repeated key; a delta whose key cannot be computed is
// taken and ends the run. A run of one is passed to processSingle as a
// one-element Deltas, a longer run to processBatch. PopBatch returns the
// process function's error, or ErrFIFOClosed once the queue is closed and
// empty.
//
// Locking, single-consumer use and HasSynced counting are as for Pop.
func (f *RealFIFO) PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.waitLocked() {
		return ErrFIFOClosed
	}
	initial := !f.sync.hasSynced()
	n := f.batchLenLocked()
	batch := make([]Delta, n)
	copy(batch, f.items[:n])
	clear(f.items[:n])
	f.items = f.items[n:]
	defer f.sync.delivered(n)

	if depth := len(f.items); depth > 10 {
		defer f.traceSlow("RealFIFO PopBatch Process", time.Now(), batch[0], depth, n)
	}
	f.metrics.QueuedItems.Set(float64(len(f.items)))

	if n == 1 {
		return f.processLocked(func() error { return processSingle(Deltas{batch[0]}, initial) })
	}
	return f.processLocked(func() error { return processBatch(batch, initial) })
}

// batchLenLocked returns how many deltas from the front PopBatch takes; see
// PopBatch for the rules. The queue must not be empty.
func (f *RealFIFO) batchLenLocked() int {
	limit := min(f.batchSize, len(f.items))
	if r := f.sync.remaining; r > 0 {
		limit = min(limit, r)
	}
	seen := make(map[string]struct{}, limit)
	for i, d := range f.items[:limit] {
		if !batchable(d.Type) {
			if i == 0 {
				return 1
			}
			return i
		}
		key, err := f.keyOf(d)
		if err != nil {
			return i + 1
		}
		if _, dup := seen[key]; dup {
			return i
		}
		seen[key] = struct{}{}
	}
	return limit
}

// batchable reports whether deltas of type t may share a batch.
func batchable(t DeltaType) bool {
	switch t {
	case Added, Updated, Deleted, Replaced, Sync:
		return true
	}
	return false
}

// waitLocked waits until a delta is queued, and reports false instead if
// the queue is closed and empty.
func (f *RealFIFO) waitLocked() bool {
	for len(f.items) == 0 {
		if f.closed {
			return false
		}
		f.cond.Wait()
	}
	return true
}

// processLocked runs process and records its latency. It is called and
// returns with the lock held, but releases the lock while process runs if
// UnlockWhileProcessing is set and the queue is not too long.
func (f *RealFIFO) processLocked(process func() error) error {
	if f.unlockWhileProc && len(f.items) < f.unlockQueueLimit {
		f.mu.Unlock()
		defer f.mu.Lock()
	}
	start := time.Now()
	err := process()
	f.metrics.ProcessingLatency.Observe(time.Since(start).Seconds())
	return err
}

// traceSlow logs the trace called name of a process call that began at
// start, for first (and, if n > 0, the rest of a batch of n deltas), with
// depth deltas waiting, if it took 100ms or more (per delta of a batch, at
// most one second). The trace, and the key of first, are built only then,
// so that a fast call allocates nothing for them.
func (f *RealFIFO) traceSlow(name string, start time.Time, first Delta, depth, n int) {
	took := time.Since(start)
	limit := 100 * time.Millisecond
	if n > 0 {
		limit = min(limit*time.Duration(n), time.Second)
	}
	if took < limit {
		return
	}
	id, _ := f.keyOf(first)
	fields := []utiltrace.Field{{Key: "Started", Value: start}}
	if n > 0 {
		fields = append(fields, utiltrace.Field{Key: "BatchSize", Value: n})
	}
	trace := f.newTrace(name, id, depth, fields...)
	trace.Step("process returned", utiltrace.Field{Key: "Took", Value: took})
	trace.Log()
}

// newTrace starts a trace of a slow process call, naming the queue's
// informer and resource when it has them.
func (f *RealFIFO) newTrace(name, id string, depth int, extra ...utiltrace.Field) *utiltrace.Trace {
	fields := []utiltrace.Field{
		{Key: "ID", Value: id},
		{Key: "Depth", Value: depth},
		{Key: "Reason", Value: "slow event handlers blocking the queue"},
	}
	fields = append(fields, extra...)
	if n := f.identifier.Name(); n != "" {
		fields = append(fields, utiltrace.Field{Key: "Name", Value: n})
	}
	if gvr := f.identifier.GroupVersionResource(); !gvr.Empty() {
		fields = append(fields, utiltrace.Field{Key: "Resource", Value: gvr})
	}
	return utiltrace.New(name, fields...)
}
