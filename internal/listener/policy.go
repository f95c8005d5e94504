package listener

import "fmt"

// OverflowPolicy says what a listener does once more than its MaxPending
// notifications wait for its handler.
type OverflowPolicy int

const (
	// OverflowGrow keeps every notification in a buffer that grows without
	// bound: client-go's behaviour, and the default.
	OverflowGrow OverflowPolicy = iota
	// OverflowCoalesce keeps at most one pending notification per object
	// key once the threshold is passed, merging a new notification into the
	// pending one, so memory is bounded by the number of objects.
	OverflowCoalesce
	// OverflowBlock makes distribution wait for room: backpressure to the
	// queue and the watch, at the cost of stalling every handler of the
	// informer.
	OverflowBlock
)

// String returns "Grow", "Coalesce" or "Block".
func (p OverflowPolicy) String() string {
	switch p {
	case OverflowGrow:
		return "Grow"
	case OverflowCoalesce:
		return "Coalesce"
	case OverflowBlock:
		return "Block"
	}
	return fmt.Sprintf("OverflowPolicy(%d)", int(p))
}
