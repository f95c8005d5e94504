package listener

import "time"

// Stats is a snapshot of one listener's counters.
type Stats struct {
	// Pending is the number of notifications waiting in the buffer, not
	// counting the one being handed to the handler (client-go's
	// pendingNotificationsLength). The classic engine also leaves out the
	// one notification its pump holds in hand.
	Pending int64
	// HighWater is the largest Pending seen.
	HighWater int64
	// Spilled counts notifications that had to wait in the buffer because
	// an earlier one had not yet been taken by the handler. It stays 0 while
	// the handler keeps up.
	Spilled uint64
	// Delivered counts handler calls, including ones that panicked.
	Delivered uint64
	// Coalesced counts notifications that OverflowCoalesce merged away:
	// each merge of two notifications into one counts 1, an Add cancelled
	// by a Delete counts 2. Without removal or stop, every notification
	// handed to the listener is eventually Delivered, Pending or Coalesced.
	Coalesced uint64
	// OldestPendingAge is how long the oldest pending notification has been
	// waiting, on the listener's clock; 0 when nothing is pending. Only the
	// direct engine measures it (the classic engine reports 0).
	OldestPendingAge time.Duration
	// Panics counts handler calls that panicked (recovered by RecoverPanics,
	// or observed when utilruntime.ReallyCrash is false).
	Panics uint64
}
