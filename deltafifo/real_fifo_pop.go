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
func (f *RealFIFO) Pop(process PopProcessFunc) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.waitLocked() {
		return nil, ErrFIFOClosed
	}
	initial := !f.sync.hasSynced()
	item, _ := f.popFrontLocked()
	defer f.sync.delivered(1)
	f.metrics.QueuedItems.Set(float64(f.lenLocked()))

	out := Deltas{item}
	return out, f.processLocked("RealFIFO Pop Process", item, 0, func() error { return process(out, initial) })
}

// PopBatch waits until a delta is queued and removes a run of deltas from
// the front of the queue: at most 1000, all of batchable types (Added,
// Updated, Deleted, Replaced, Sync) and distinct keys, none past the end of
// the initial population while it is being delivered. The run ends before
// the first delta of another type (such a delta at the front is taken
// alone) and before a repeated key; a delta whose key cannot be computed is
// taken and ends the run. (The keys are those computed when the deltas were
// queued.) A run of one is passed to processSingle as a one-element Deltas,
// a longer run to processBatch. PopBatch returns the process function's error, or
// ErrFIFOClosed once the queue is closed and empty.
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
	if n == 1 {
		item, _ := f.popFrontLocked()
		defer f.sync.delivered(1)
		f.metrics.QueuedItems.Set(float64(f.lenLocked()))
		out := Deltas{item}
		return f.processLocked("RealFIFO PopBatch Process", item, 1, func() error { return processSingle(out, initial) })
	}
	batch := make([]Delta, n)
	f.popBatchLocked(batch, nil)
	defer f.sync.delivered(n)
	f.metrics.QueuedItems.Set(float64(f.lenLocked()))
	return f.processLocked("RealFIFO PopBatch Process", batch[0], n, func() error { return processBatch(batch, initial) })
}

// popKeyed is the informer's pop (see package internal/queueaccess): with
// batch false it is Pop, with batch true PopBatch, for a consumer that
// wants the keys computed when the deltas were queued.
func (f *RealFIFO) popKeyed(batch bool, process poppedFunc) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.waitLocked() {
		return ErrFIFOClosed
	}
	initial := !f.sync.hasSynced()
	n := 1
	if batch {
		n = f.batchLenLocked()
	}
	deltas, keys := f.takeScratchLocked(n)
	defer f.releaseScratchLocked(deltas, keys)
	if !f.popBatchLocked(deltas, keys) {
		keys = nil
	}
	defer f.sync.delivered(n)
	f.metrics.QueuedItems.Set(float64(f.lenLocked()))
	name, traced := "RealFIFO Pop Process", 0
	if batch {
		name, traced = "RealFIFO PopBatch Process", n
	}
	p := popped{Deltas: deltas, Keys: keys, Batch: n > 1, IsInInitialList: initial}
	return f.processLocked(name, deltas[0], traced, func() error { return process(p) })
}

// popFrontLocked removes the oldest delta and returns it with its key.
// The queue must not be empty.
func (f *RealFIFO) popFrontLocked() (Delta, itemKey) {
	h := f.head
	item, key := f.items[h], f.keys[h]
	f.items[h], f.keys[h] = Delta{}, itemKey{}
	f.advanceLocked(1)
	return item, key
}

// popBatchLocked moves the len(deltas) oldest deltas, and their keys if
// keys is not nil, out of the queue into the given slices. It reports
// whether every one of them has a key.
func (f *RealFIFO) popBatchLocked(deltas []Delta, keys []string) (allKeyed bool) {
	n := len(deltas)
	items, itemKeys := f.items[f.head:f.head+n], f.keys[f.head:f.head+n]
	copy(deltas, items)
	allKeyed = true
	for i, k := range itemKeys {
		if keys != nil {
			keys[i] = k.key
		}
		allKeyed = allKeyed && k.ok
	}
	clear(items)
	clear(itemKeys)
	f.advanceLocked(n)
	return allKeyed
}

// lenLocked is the number of queued deltas.
func (f *RealFIFO) lenLocked() int { return len(f.items) - f.head }

// advanceLocked moves the front of the queue past n popped (and cleared)
// slots; once the queue is empty its slices are reused from the start, or
// dropped if a burst made them large.
func (f *RealFIFO) advanceLocked(n int) {
	f.head += n
	if f.head < len(f.items) {
		return
	}
	f.head = 0
	if cap(f.items) > shrinkAbove {
		f.items, f.keys = nil, nil
		return
	}
	f.items, f.keys = f.items[:0], f.keys[:0]
}

// takeScratchLocked returns slices of n deltas and keys for a keyed pop:
// the queue's own, reused from pop to pop, unless another pop is using
// them (consumers that pop concurrently while UnlockWhileProcessing lets
// them), then new ones.
func (f *RealFIFO) takeScratchLocked(n int) ([]Delta, []string) {
	if f.scratchBusy {
		return make([]Delta, n), make([]string, n)
	}
	f.scratchBusy = true
	if cap(f.scratch) < n {
		f.scratch = make([]Delta, n)
		f.scratchKeys = make([]string, n)
	}
	return f.scratch[:n], f.scratchKeys[:n]
}

// releaseScratchLocked clears the slices of a keyed pop, so that they do
// not keep objects alive, and gives the queue's own back. It runs with the
// lock held (deferred after processLocked has taken it again).
func (f *RealFIFO) releaseScratchLocked(deltas []Delta, keys []string) {
	clear(deltas)
	clear(keys)
	if len(deltas) > 0 && len(f.scratch) > 0 && &deltas[0] == &f.scratch[0] {
		f.scratchBusy = false
	}
}

// batchLenLocked returns how many deltas from the front PopBatch takes; see
// PopBatch for the rules. The queue must not be empty.
func (f *RealFIFO) batchLenLocked() int {
	items, keys := f.items[f.head:], f.keys[f.head:]
	limit := min(f.batchSize, len(items))
	if r := f.sync.remaining; r > 0 {
		limit = min(limit, r)
	}
	// A short run is checked for repeated keys by scanning it, a long one
	// with a set.
	var seen map[string]struct{}
	if limit > 16 {
		if f.batchKeys == nil {
			f.batchKeys = make(map[string]struct{}, limit)
		}
		seen = f.batchKeys
		defer clear(seen)
	}
	for i, d := range items[:limit] {
		if !batchable(d.Type) {
			if i == 0 {
				return 1
			}
			return i
		}
		k := keys[i]
		if !k.ok {
			return i + 1
		}
		key := k.key
		if seen == nil {
			for _, prev := range keys[:i] {
				if prev.key == key {
					return i
				}
			}
			continue
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
	for f.lenLocked() == 0 {
		if f.closed {
			return false
		}
		f.cond.Wait()
	}
	return true
}

// processLocked runs process. It is called and returns with the lock
// held, but releases the lock while process runs if UnlockWhileProcessing
// is set and the queue is not too long. The call is timed, with one clock
// read before and one after, only when the processing-latency metric
// records something or when more than 10 deltas wait behind it and klog's
// verbosity allows traces (see traceEnabled); then a call
// that took 100ms or more (per delta of a batch of n > 0, at most one
// second) is logged as the trace called name, for first and the rest of
// the batch.
func (f *RealFIFO) processLocked(name string, first Delta, n int, process func() error) error {
	depth := f.lenLocked()
	if f.unlockWhileProc && depth < f.unlockQueueLimit {
		f.mu.Unlock()
		defer f.mu.Lock()
	}
	traced := depth > 10 && traceEnabled()
	if !f.latencyOn && !traced {
		return process()
	}
	start := time.Now()
	err := process()
	elapsed := time.Since(start)
	if f.latencyOn {
		f.metrics.ProcessingLatency.Observe(elapsed.Seconds())
	}
	if traced {
		f.traceSlow(name, start, elapsed, first, depth, n)
	}
	return err
}

// traceSlow logs the trace called name of a process call that began at
// start and ran for elapsed, for first (and, if n > 0, the rest of a batch of n
// deltas), with depth deltas waiting, if it took 100ms or more (per delta
// of a batch, at most one second). The trace, and the key of first, are
// built only then, so that a fast call allocates nothing for them.
func (f *RealFIFO) traceSlow(name string, start time.Time, elapsed time.Duration, first Delta, depth, n int) {
	limit := 100 * time.Millisecond
	if n > 0 {
		limit = min(limit*time.Duration(n), time.Second)
	}
	if elapsed < limit {
		return
	}
	id, _ := f.keyOf(first)
	fields := []utiltrace.Field{{Key: "Started", Value: start}}
	if n > 0 {
		fields = append(fields, utiltrace.Field{Key: "BatchSize", Value: n})
	}
	trace := f.newTrace(name, id, depth, fields...)
	trace.Step("process returned", utiltrace.Field{Key: "Took", Value: elapsed})
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
