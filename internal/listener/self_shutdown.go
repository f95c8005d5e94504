package listener

import (
	"sync"

	"github.com/kfanout/fanout/internal/goid"
)

// callers are the goroutines that call one listener's handler: the engine's
// delivery goroutine, or its workers. They are tracked so that
// [Listener.ShutdownChan], called from inside the handler after a removal
// (ShutDownEventHandler from the handler's own callback), does not wait for
// the call it is made from, which would never return.
type callers struct {
	mu sync.Mutex
	// ids are the goroutines calling the handler, each mapped to whether
	// it waits, from inside a handler call, for the others to stop.
	ids map[uint64]bool
	// othersDone is made by the first such wait and closed once every
	// goroutine left in ids is waiting too.
	othersDone chan struct{}
}

// enterCaller registers the calling goroutine as one that calls l's
// handler; the goroutine defers the returned function.
func (l *Listener) enterCaller() (leave func()) {
	id := goid.Current()
	if id == 0 {
		return func() {}
	}
	c := &l.callers
	c.mu.Lock()
	if c.ids == nil {
		c.ids = map[uint64]bool{}
	}
	c.ids[id] = false
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.ids, id)
		c.closeIfOthersDoneLocked()
	}
}

// selfShutdownChan returns, when the calling goroutine is one of the
// listener's callers, a channel closed once every other caller has
// returned from the handler (or waits in the same way); nil otherwise.
// Only a stopped listener is asked, so no call starts on the callers
// after that.
func (l *Listener) selfShutdownChan() <-chan struct{} {
	id := goid.Current()
	c := &l.callers
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.ids[id]; !ok || id == 0 {
		return nil
	}
	c.ids[id] = true
	if c.othersDone == nil {
		c.othersDone = make(chan struct{})
	}
	ch := c.othersDone
	c.closeIfOthersDoneLocked()
	return ch
}

// closeIfOthersDoneLocked closes othersDone once every caller left waits
// in selfShutdownChan.
func (c *callers) closeIfOthersDoneLocked() {
	if c.othersDone == nil {
		return
	}
	for _, waiting := range c.ids {
		if !waiting {
			return
		}
	}
	select {
	case <-c.othersDone:
	default:
		close(c.othersDone)
	}
}
