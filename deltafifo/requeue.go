package deltafifo

// ErrRequeue may be returned by a PopProcessFunc to put the popped item
// back in the queue, unless something was queued for its key meanwhile
// (the queue's Pop then returns Err, which may be nil). It is client-go's
// legacy contract (removed from client-go in v0.33), kept for programs
// written against it.
type ErrRequeue struct {
	// Err is returned by Pop in place of the ErrRequeue.
	Err error
}

// Error returns Err's text, or a fixed sentence when Err is nil.
func (e ErrRequeue) Error() string {
	if e.Err == nil {
		return "the popped item should be requeued without returning an error"
	}
	return e.Err.Error()
}

// requeueError reports whether err asks for a requeue, and the error Pop
// returns in its place.
func requeueError(err error) (requeue bool, out error) {
	if e, ok := err.(ErrRequeue); ok {
		return true, e.Err
	}
	return false, err
}
