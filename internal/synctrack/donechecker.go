// Package synctrack tracks whether an informer, or one handler registration
// of it, has finished delivering its initial list.
//
// Its DoneChecker is the one interface every fanout package names in method
// signatures, so that informer.DoneChecker, deltafifo.DoneChecker and
// listener.DoneChecker are the same type.
package synctrack

// DoneChecker is something that finishes once: its Done channel is closed
// when it has finished, and Name says what it is in log messages.
type DoneChecker interface {
	// Name identifies the checker in logs.
	Name() string
	// Done returns a channel that is closed once the checker has finished.
	Done() <-chan struct{}
}
