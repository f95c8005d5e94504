package listener

import (
	"fmt"
	"sync"
	"time"
)

// Engine selects how a listener moves notifications to its handler.
type Engine int

const (
	// EngineDirect is fanout's engine and the default (the zero value):
	// one goroutine per handler that reads the processor's shared log of
	// notifications through its own cursor (or, with an overflow policy
	// other than OverflowGrow or Workers > 1, drains a mutex-guarded queue
	// of its own, plus Workers goroutines). It has the same guarantees as
	// EngineClassic and is the only engine with overload control.
	EngineDirect Engine = iota
	// EngineClassic is client-go's processorListener shape, kept exactly:
	// an unbuffered add channel, a pump goroutine with a one-notification
	// lookahead that spills into a growing ring, and a goroutine that calls
	// the handler. It is the fidelity reference.
	EngineClassic
	// engineDirectQueue is EngineDirect on a queue of its own even where
	// it would read the shared log (OverflowGrow, one goroutine): the
	// form the direct engine takes for the overload options. Tests pass it
	// to run that form with default options; a listener on it reports
	// EngineDirect.
	engineDirectQueue
)

// String returns "classic" or "direct".
func (e Engine) String() string {
	switch e {
	case EngineClassic:
		return "classic"
	case EngineDirect:
		return "direct"
	case engineDirectQueue:
		return "direct (own queue)"
	}
	return fmt.Sprintf("Engine(%d)", int(e))
}

// newEngine returns the engine that opts select for l, created by p: the
// classic engine if asked for and no overload option needs the direct one;
// otherwise the direct engine, reading p's shared log where it buffers
// without bound and calls its handler from one goroutine, and on a queue
// of its own elsewhere.
func newEngine(l *Listener, p *Processor, size int, opts Options) engine {
	switch {
	case opts.Engine == EngineClassic && !opts.needsDirect():
		return newClassic(l, size)
	case opts.Engine != engineDirectQueue && opts.Overflow == OverflowGrow && opts.Workers <= 1:
		return newLogReader(l, &p.log)
	}
	return newDirect(l, size, opts)
}

// engine moves notifications from the processor to one handler. The
// listener owns what every engine shares (handler, sync tracking, stop and
// shutdown channels, resync bookkeeping); an engine owns the buffering and
// the goroutine bodies.
//
// Contract: add never waits for the handler (except under OverflowBlock,
// where it waits for room until unblock or stop), and returns once the
// listener's stopCh is closed; start starts the engine's goroutines on wg,
// and the engine closes l.runFinished once it will call the handler no more;
// stop is called right after stopCh is closed and may drop what is pending;
// unblock makes a waiting add, and every later one, return at once.
// The at given to
// add is when n was handed over, as Processor.now returns it (read once per
// Distribute, not once per listener). Every engine
// reports each change of its pending count through Listener.notePending and
// Listener.pendingChanged, and closes runFinished through Listener.finished.
type engine interface {
	add(n Notification, at int64)
	// replay is add for a notification of the handler's starting state
	// (Hub.Register): it never waits for room.
	replay(n Notification, at int64)
	start(wg *sync.WaitGroup)
	stop()
	unblock()
	// kind is the engine as [Listener.Engine] reports it.
	kind() Engine
	// readsLog reports whether the engine reads the processor's shared
	// log, so that Distribute appends a notification once for all such
	// engines instead of calling their add.
	readsLog() bool
	// join and leave are called by the processor, under its lock, when
	// the listener is added and when it is removed or stopped (join
	// attaches a log reader to the log).
	join()
	leave()
	stats() Stats
	// oldestAge returns how long the oldest pending notification has
	// waited; ok is false when nothing is pending or the engine does not
	// measure it.
	oldestAge() (age time.Duration, ok bool)
}
