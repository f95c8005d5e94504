package deltafifo

// tryLen returns the number of keys queued, like Len, unless the queue's
// lock is held (by Pop's process call, for example), when it reports false
// at once instead of waiting. It is for observers, such as a debug page,
// that must not wait behind a stalled consumer; the informer reaches it
// through internal/queueaccess.
func (f *DeltaFIFO) tryLen() (n int, ok bool) {
	if !f.mu.TryLock() {
		return 0, false
	}
	defer f.mu.Unlock()
	return len(f.queue) - f.head, true
}

// tryLen returns the number of items queued, like Len, unless the queue's
// lock is held, when it reports false at once instead of waiting.
func (f *RealFIFO) tryLen() (n int, ok bool) {
	if !f.mu.TryLock() {
		return 0, false
	}
	defer f.mu.Unlock()
	return len(f.items) - f.head, true
}
