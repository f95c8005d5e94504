package listener

import "time"

// Stats is a snapshot of one listener's counters.
type Stats struct {
	// Pending is the number of notifications the listener has taken (Add
	// returned) that the handler has not yet been called with: a
	// notification stops being pending when it is handed to the goroutine
	// that calls the handler. So the first notification waiting behind a
	// busy handler counts at once, and the one being handled does not. The
	// classic engine counts the notification its pump holds in hand as well
	// as its ring (client-go's pendingNotificationsLength is the ring
	// alone). With Workers > 1, notifications already handed to a worker's
	// small buffer (at most 4 per worker) are not counted. The pending
	// gauge of Options.Metrics has exactly this value.
	Pending int64
	// HighWater is the largest Pending seen. The direct engine without
	// overload options samples it when its goroutine catches up with the
	// notifications it knew of and when Stats is read, so a peak reached
	// while the handler works through a backlog can be missed by what was
	// distributed meanwhile; with Metrics set it is exact.
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
	// waiting, on the listener's clock; 0 when nothing is pending. The
	// classic engine measures it only when Options.Metrics is set (it
	// costs a clock read per notification) and reports 0 otherwise.
	OldestPendingAge time.Duration
	// Panics counts handler calls that panicked (recovered by RecoverPanics,
	// or observed when utilruntime.ReallyCrash is false).
	Panics uint64
}
