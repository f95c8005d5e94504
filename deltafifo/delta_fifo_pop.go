package deltafifo

import (
	"time"

	"k8s.io/klog/v2"
	utiltrace "k8s.io/utils/trace"
)

// Pop waits until a key is queued, removes it with all its Deltas, and
// calls process with the Deltas and whether they belong to the initial
// population. It returns the Deltas and process's error. An error does not
// requeue anything (the Deltas are dropped), except an ErrRequeue: then the
// Deltas go back to the end of the queue unless something was queued for
// their key meanwhile, and Pop returns the ErrRequeue's Err. Once the queue is closed and
// empty, Pop returns ErrFIFOClosed without calling process.
//
// process runs while the queue's lock is held, as in client-go: it may
// update KnownObjects without racing Replace, Resync or Delete, but it must
// not call methods of this queue (they would deadlock), and every producer
// waits while it runs. A slow process is traced ("DeltaFIFO Pop Process",
// logged if it takes over 100ms) when more than 10 keys wait behind it and
// klog's verbosity is 2 or more (below it a trace is never logged, so the
// call is not timed).
//
// The key is counted as delivered for HasSynced before process is called.
// Pop is meant for a single consumer goroutine.
func (f *DeltaFIFO) Pop(process PopProcessFunc) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key, deltas, initial, ok := f.popWaitLocked()
	if !ok {
		return nil, ErrFIFOClosed
	}
	if depth := len(f.queue) - f.head; depth > 10 && traceEnabled() {
		defer traceSlowPop(time.Now(), key, depth)
	}
	// The caller owns the Deltas from here on; nothing else refers to
	// them. They are boxed once, for both the process call and the result.
	var item any = deltas
	requeue, err := requeueError(process(item, initial))
	if requeue {
		f.addIfNotPresentLocked(key, deltas)
	}
	return item, err
}

// popKeyed is the informer's pop (see package internal/queueaccess): Pop for
// a consumer that wants the key the Deltas were queued under. It saves the
// consumer a key computation and Pop the boxing of its result. A DeltaFIFO
// pops one key at a time, so the batch argument is ignored.
func (f *DeltaFIFO) popKeyed(_ bool, process poppedFunc) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	key, deltas, initial, ok := f.popWaitLocked()
	if !ok {
		return ErrFIFOClosed
	}
	if depth := len(f.queue) - f.head; depth > 10 && traceEnabled() {
		defer traceSlowPop(time.Now(), key, depth)
	}
	f.poppedKey[0] = key
	return process(popped{Deltas: deltas, Keys: f.poppedKey[:], IsInInitialList: initial})
}

// popWaitLocked waits until a key is queued and pops it, counting it as
// delivered for HasSynced. initial tells whether it was part of the
// initial population. ok is false when the queue is closed and empty.
func (f *DeltaFIFO) popWaitLocked() (key string, deltas Deltas, initial, ok bool) {
	for len(f.queue) == f.head {
		if f.closed {
			return "", nil, false, false
		}
		f.cond.Wait()
	}
	initial = !f.sync.hasSynced()
	key, deltas = f.popLocked()
	f.sync.delivered(1)
	return key, deltas, initial, true
}

// slowProcessThreshold is how long a process call with more than 10 keys
// waiting behind it may take before it is logged.
const slowProcessThreshold = 100 * time.Millisecond

// traceSlowPop logs the "DeltaFIFO Pop Process" trace of a process call
// that began at start for key, with depth keys waiting, if it took
// slowProcessThreshold or more. The trace is built only then, so that a
// fast call allocates nothing for it.
func traceSlowPop(start time.Time, key string, depth int) {
	took := time.Since(start)
	if took < slowProcessThreshold {
		return
	}
	trace := utiltrace.New("DeltaFIFO Pop Process",
		utiltrace.Field{Key: "ID", Value: key},
		utiltrace.Field{Key: "Depth", Value: depth},
		utiltrace.Field{Key: "Reason", Value: "slow event handlers blocking the queue"},
		utiltrace.Field{Key: "Started", Value: start})
	trace.Step("process returned", utiltrace.Field{Key: "Took", Value: took})
	trace.Log()
}

// traceEnabled reports whether a slow-process trace would be logged:
// k8s.io/utils/trace logs only at klog verbosity 2 or more, so below it the
// queues do not time their process calls for the trace (a clock read costs
// about as much as the rest of a Pop).
func traceEnabled() bool { return klog.V(2).Enabled() }
