package ring

import "time"

// Metrics receives a replica's sharding figures. Implementations must be
// safe for concurrent use and fast: they are called from the coordinator's
// loop and from the informers' watch paths.
type Metrics interface {
	// OwnedRanges is the number of ranges the replica delivers now.
	OwnedRanges(n int)
	// Handover is how long the replica took to give range r up: from
	// stopping its delivery to releasing its claim.
	Handover(r Range, d time.Duration)
	// RangeObjects is the number of objects in range r's store; 0 once the
	// range is dropped.
	RangeObjects(r Range, n int)
	// ClientFiltered counts watch events and list items of range r that
	// the server sent although they lie outside the range (it does not
	// shard) and the client dropped.
	ClientFiltered(r Range, n int)
}

// NoMetrics is the default Metrics: it records nothing.
type NoMetrics struct{}

// OwnedRanges records nothing.
func (NoMetrics) OwnedRanges(int) {}

// Handover records nothing.
func (NoMetrics) Handover(Range, time.Duration) {}

// RangeObjects records nothing.
func (NoMetrics) RangeObjects(Range, int) {}

// ClientFiltered records nothing.
func (NoMetrics) ClientFiltered(Range, int) {}
