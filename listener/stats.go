package listener

// Stats is a snapshot of one listener's counters.
type Stats struct {
	// Pending is the number of notifications waiting in the buffer, not
	// counting the one being handed to the handler (client-go's
	// pendingNotificationsLength).
	Pending int64
	// HighWater is the largest Pending seen.
	HighWater int64
	// Spilled counts notifications that had to wait in the buffer because
	// an earlier one had not yet been taken by the handler. It stays 0 while
	// the handler keeps up.
	Spilled uint64
	// Delivered counts handler calls, including ones that panicked.
	Delivered uint64
	// Panics counts handler calls that panicked (only possible to observe
	// when utilruntime.ReallyCrash is false).
	Panics uint64
}
