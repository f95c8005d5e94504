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

// ListenerStats is a snapshot of one registration's counters, returned by
// the Stats method of the registrations this package hands out.
type ListenerStats = listener.Stats
