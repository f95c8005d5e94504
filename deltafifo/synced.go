package deltafifo

// initialSync tracks whether a queue has handed out its initial population:
// the items of the first Replace, when that Replace came before any Add,
// Update or Delete. Both queues embed one and guard it with their lock.
type initialSync struct {
	// done is closed, once, when the initial population has been delivered.
	done       chan struct{}
	doneClosed bool

	// populated is set by the first Add, Update, Delete or Replace.
	populated bool
	// remaining counts the initial items that have not been processed yet.
	remaining int
}

func newInitialSync() initialSync {
	return initialSync{done: make(chan struct{})}
}

// hasSynced reports whether done has been closed.
func (s *initialSync) hasSynced() bool { return s.doneClosed }

// populate marks the queue as populated. If it was not populated yet and
// count is not negative, count becomes the size of the initial population.
// It reports whether this call populated the queue.
func (s *initialSync) populate(count int) bool {
	if s.populated {
		return false
	}
	s.populated = true
	if count > 0 {
		s.remaining = count
	}
	s.check()
	return true
}

// delivered records that n initial items have been processed. It does
// nothing once the initial population is exhausted.
func (s *initialSync) delivered(n int) {
	if s.remaining <= 0 {
		return
	}
	s.remaining -= n
	s.check()
}

// check closes done once the queue is populated and nothing of the initial
// population is left.
func (s *initialSync) check() {
	if s.populated && s.remaining == 0 && !s.doneClosed {
		s.doneClosed = true
		close(s.done)
	}
}
