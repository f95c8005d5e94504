package listener

import "time"

// maxTimedGroup is the most backlogged handler calls the direct engine
// times with one pair of clock reads.
const maxTimedGroup = 64

// runLoop calls l's handler for each notification next returns, in order,
// until next reports the listener stopped. Both direct engines run it.
//
// While more than initialBufferSize notifications are pending, handler
// calls are timed and logged if slow, as client-go's "processorListener
// handler" trace, but in groups, to spare a clock read per call: back-to-back
// calls are timed together, the group doubling (up to maxTimedGroup) while
// groups take less than the threshold, so no call in them was slow. A group
// that reaches the threshold is logged, with its number of calls, and the
// next group is a single call again, so a handler that stays slow is traced
// call by call.
func runLoop(l *Listener, next func() (n Notification, pending int64, ok bool)) {
	crashed := false
	var start time.Time // when the current timed group began; zero outside a backlog
	var calls, group int
	var lastPending int64
	endGroup := func() {
		end := time.Now()
		took := end.Sub(start)
		l.traceIfSlow(start, took, lastPending, calls)
		if took >= slowTraceThreshold {
			group = 1
		} else {
			group = min(2*group, maxTimedGroup)
		}
		start, calls = end, 0
	}
	for {
		n, pending, ok := next()
		if !ok {
			return
		}
		if crashed {
			l.waitAfterCrash()
			start, calls = time.Time{}, 0
		}
		if pending <= initialBufferSize {
			if calls > 0 {
				endGroup()
			}
			start = time.Time{}
			crashed = l.deliver(n, pending, false)
			continue
		}
		if start.IsZero() {
			start, calls, group = time.Now(), 0, 1
		}
		crashed = l.deliver(n, pending, false)
		calls++
		lastPending = pending
		if calls >= group {
			endGroup()
		}
	}
}
