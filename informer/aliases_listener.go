package informer

import "github.com/kfanout/fanout/listener"

// OverflowPolicy says what a handler's listener does once more than
// HandlerOptions.MaxPending notifications wait.
type OverflowPolicy = listener.OverflowPolicy

// The overflow policies.
const (
	// OverflowGrow buffers without bound, as client-go does (the default).
	OverflowGrow = listener.OverflowGrow
	// OverflowCoalesce keeps at most one pending notification per object
	// key past the threshold.
	OverflowCoalesce = listener.OverflowCoalesce
	// OverflowBlock makes distribution wait for room (backpressure).
	OverflowBlock = listener.OverflowBlock
)

// ListenerEngine selects how handlers' listeners deliver notifications;
// see SharedIndexInformerOptions.ListenerEngine.
type ListenerEngine = listener.Engine

// The listener engines.
const (
	// EngineDirect is fanout's engine and the default (the zero value):
	// one goroutine per handler reading a log shared by all handlers; it is
	// the one that implements overload control.
	EngineDirect = listener.EngineDirect
	// EngineClassic is client-go's processorListener shape (two goroutines
	// and two channel handoffs per handler), kept as the fidelity
	// reference.
	EngineClassic = listener.EngineClassic
)

// ListenerStats is a snapshot of one registration's counters, returned by
// the Stats method of the registrations this package hands out.
type ListenerStats = listener.Stats

// StatsOf returns the counters of a registration returned by this
// package's informers; ok is false for any other registration.
func StatsOf(reg ResourceEventHandlerRegistration) (stats ListenerStats, ok bool) {
	s, ok := reg.(interface{ Stats() ListenerStats })
	if !ok {
		return ListenerStats{}, false
	}
	return s.Stats(), true
}
