package listener

// engine moves notifications from the processor to one handler. The
// listener owns what every engine shares (handler, sync tracking, stop and
// shutdown channels, resync bookkeeping); an engine owns the buffering and
// the goroutine bodies.
//
// Contract: add never waits for the handler, and returns once the listener's
// stopCh is closed; pop returns once stopCh is closed, dropping what is
// pending, and then makes run return; run calls l.deliver for each
// notification in order and l.waitAfterCrash after a reported crash.
type engine interface {
	add(n Notification)
	pop()
	run()
	stats() Stats
}
