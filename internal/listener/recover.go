package listener

import (
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// recoverPanic, deferred around a handler call under RecoverPanics,
// recovers a panic, counts it, and marks an initial-list add finished so
// that HasSynced cannot wedge on it (client-go issue #129024). The next
// notification follows at once.
//
// The log is rate-limited per listener, as the backlog messages are: a
// panic is logged with its stack unless a panic message was logged less
// than logInterval ago; the panics left out are then counted, and a
// summary with their count and the newest of them is logged when
// logInterval has passed since the last message (by a timer, so a burst
// that stops is summarised too) and when the listener stops. A handler
// that panics on every call thus writes one stack and at most one summary
// per interval, however fast it fails; the panic counters count every
// call.
func (l *Listener) recoverPanic(n Notification) {
	r := recover()
	if r == nil {
		return
	}
	l.countPanic()
	if n.initialListAdd() {
		l.syncTracker.Finished()
	}
	p := panicReport{value: r, kind: n.Kind.String(), key: l.keyOf(n.Obj)}
	full, sum := l.panicLog.note(p, l)
	switch {
	case full:
		l.logger.Error(fmt.Errorf("panic: %v", r), "Recovered from a panic in an event handler",
			"handler", l.name, "notification", p.kind, "key", p.key, "stack", string(debug.Stack()))
	case sum.count > 0:
		l.logPanicSummary(sum)
	}
}

// panicReport is what the log says about one recovered panic.
type panicReport struct {
	value     any
	kind, key string
}

// panicSummary is a summary message: count panics not logged one by one,
// the newest being latest.
type panicSummary struct {
	count  int
	latest panicReport
}

// panicLog rate-limits one listener's panic messages. Workers may recover
// panics concurrently; nothing is logged with mu held.
type panicLog struct {
	mu         sync.Mutex
	last       time.Time   // when the last panic message was logged; zero before the first
	suppressed int         // panics recovered since then and not logged
	latest     panicReport // the newest of them
	timer      clock.Timer // set while a summary waits for its time
	gen        uint64      // bumped whenever timer is dropped, so a stale one does nothing
	done       bool        // the listener calls its handler no more: no timer is set
}

// note records the panic p of l's handler. It reports whether to log p in
// full, or else a summary that is due now (count 0: none).
func (pl *panicLog) note(p panicReport, l *Listener) (full bool, sum panicSummary) {
	now := l.clock.Now()
	pl.mu.Lock()
	defer pl.mu.Unlock()
	since := now.Sub(pl.last)
	if pl.last.IsZero() || (pl.suppressed == 0 && since >= logInterval) {
		pl.last = now
		return true, panicSummary{}
	}
	pl.suppressed++
	pl.latest = p
	if since >= logInterval {
		// The summary's timer has not run yet, or the clock has none.
		return false, pl.takeLocked(now)
	}
	if pl.timer == nil && !pl.done {
		if after, ok := l.clock.(clock.WithDelayedExecution); ok {
			gen := pl.gen
			pl.timer = after.AfterFunc(logInterval-since, func() { l.panicTimerFired(gen) })
		}
	}
	return false, panicSummary{}
}

// takeLocked returns the pending summary and starts a new interval at now.
func (pl *panicLog) takeLocked(now time.Time) panicSummary {
	s := panicSummary{count: pl.suppressed, latest: pl.latest}
	pl.suppressed, pl.latest, pl.last = 0, panicReport{}, now
	pl.dropTimerLocked()
	return s
}

// dropTimerLocked stops the summary timer, if any.
func (pl *panicLog) dropTimerLocked() {
	if pl.timer != nil {
		pl.timer.Stop()
		pl.timer = nil
	}
	pl.gen++
}

// panicTimerFired logs the summary that the timer of generation gen was
// set for, unless it was logged already.
func (l *Listener) panicTimerFired(gen uint64) {
	pl := &l.panicLog
	pl.mu.Lock()
	if gen != pl.gen || pl.suppressed == 0 {
		pl.mu.Unlock()
		return
	}
	sum := pl.takeLocked(l.clock.Now())
	pl.mu.Unlock()
	l.logPanicSummary(sum)
}

// endPanicLog is called once the handler will be called no more: it stops
// the summary timer and logs what it was waiting to summarise.
func (l *Listener) endPanicLog() {
	pl := &l.panicLog
	pl.mu.Lock()
	pl.done = true
	var sum panicSummary
	if pl.suppressed > 0 {
		sum = pl.takeLocked(l.clock.Now())
	} else {
		pl.dropTimerLocked()
	}
	pl.mu.Unlock()
	if sum.count > 0 {
		l.logPanicSummary(sum)
	}
}

// logPanicSummary logs s.
func (l *Listener) logPanicSummary(s panicSummary) {
	l.logger.Error(fmt.Errorf("panic: %v", s.latest.value), "Recovered from more panics in an event handler, not logged one by one",
		"handler", l.name, "panics", s.count, "notification", s.latest.kind, "key", s.latest.key)
}
