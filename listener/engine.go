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
)

// String returns "classic" or "direct".
func (e Engine) String() string {
	switch e {
	case EngineClassic:
		return "classic"
	case EngineDirect:
		return "direct"
	}
	return fmt.Sprintf("Engine(%d)", int(e))
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
	start(wg *sync.WaitGroup)
	stop()
	unblock()
	stats() Stats
	// oldestAge returns how long the oldest pending notification has
	// waited; ok is false when nothing is pending or the engine does not
	// measure it.
	oldestAge() (age time.Duration, ok bool)
}
