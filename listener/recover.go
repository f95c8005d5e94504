package listener

import (
	"fmt"
	"runtime/debug"
)

// recoverPanic, deferred around a handler call under RecoverPanics,
// recovers a panic, logs it with the handler name and the object's key,
// counts it, and marks an initial-list add finished so that HasSynced cannot
// wedge on it (client-go issue #129024). The next notification follows at
// once.
func (l *Listener) recoverPanic(n Notification) {
	r := recover()
	if r == nil {
		return
	}
	l.countPanic()
	if n.initialListAdd() {
		l.syncTracker.Finished()
	}
	l.logger.Error(fmt.Errorf("panic: %v", r), "Recovered from a panic in an event handler",
		"handler", l.name, "notification", n.Kind.String(), "key", l.keyOf(n.Obj), "stack", string(debug.Stack()))
}
