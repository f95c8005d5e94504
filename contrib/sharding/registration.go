package sharding

import (
	"errors"
	"sync"
	"time"

	"github.com/kfanout/fanout/internal/goid"

	"github.com/kfanout/fanout/informer"
)

// registration is a handler registered on a ShardedInformer: one
// registration per owned range's informer, all calling handler.
type registration struct {
	s       *ShardedInformer
	handler informer.ResourceEventHandler // gated, and serialised unless Workers > 1
	opts    informer.HandlerOptions
	synced  *doneChecker

	mu      sync.Mutex
	removed bool
	// inflight counts the calls inside the user's handler; waiting those
	// of them that wait in ShutdownChan for the others (a self-shutdown).
	inflight, waiting int
	// othersDone is made by the first self-shutdown and closed once every
	// call in progress waits in ShutdownChan too.
	othersDone chan struct{}
	// inner are the range registrations removed with the handler, each
	// with the channel its ShutdownChan gives a goroutine outside it.
	inner []innerRegistration
	// innerDone is set once every inner registration has shut down.
	innerDone bool
	// finishing are the goroutines delivering a lost range's deletes to
	// the handler (finishRange), by goroutine id.
	finishing map[uint64]int
	shutdown  chan struct{} // closed when no range calls the handler any more
	closed    bool
}

// innerRegistration is reg's registration on one range informer.
type innerRegistration struct {
	rr      informer.ResourceEventHandlerRegistration
	outside <-chan struct{} // rr's ShutdownChan as seen from outside its handler
}

var _ informer.ResourceEventHandlerRegistration = &registration{}

func (r *registration) isRemoved() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.removed
}

// HasSynced reports whether the informer has settled and this handler has
// returned from every initial-list add of every owned range.
func (r *registration) HasSynced() bool {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.hasSyncedLocked()
}

func (r *registration) hasSyncedLocked() bool {
	if !r.s.settled {
		return false
	}
	for _, ri := range r.s.ranges {
		if rr, ok := ri.regs[r]; !ok || !rr.HasSynced() {
			return false
		}
	}
	return true
}

// HasSyncedChecker is HasSynced as a DoneChecker: done the first time
// HasSynced is true.
func (r *registration) HasSyncedChecker() informer.DoneChecker { return r.synced }

// ShutdownChan is closed once, after RemoveEventHandler, no range calls the
// handler any more (informer.ShutDownEventHandler waits for it). Asked
// after the removal from inside one of the handler's calls, it returns a
// channel closed once every other call in progress has returned or waits
// in the same way, so a handler can shut itself down: its own call is not
// waited for, and no call starts after the removal.
func (r *registration) ShutdownChan() <-chan struct{} {
	r.mu.Lock()
	removed, inner, finishing := r.removed, r.inner, len(r.finishing) > 0
	r.mu.Unlock()
	if !removed || !r.calledFromHandler(inner, finishing) {
		return r.shutdown
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiting++
	if r.othersDone == nil {
		r.othersDone = make(chan struct{})
	}
	r.checkLocked()
	return r.othersDone
}

// calledFromHandler reports whether the calling goroutine is one that
// calls the handler: a range informer's (its registration's ShutdownChan
// then answers with its own self-shutdown channel, not the outside one)
// or a lost range's delete delivery.
func (r *registration) calledFromHandler(inner []innerRegistration, finishing bool) bool {
	for _, in := range inner {
		if sc, ok := in.rr.(interface{ ShutdownChan() <-chan struct{} }); ok && sc.ShutdownChan() != in.outside {
			return true
		}
	}
	if !finishing {
		return false
	}
	id := goid.Current()
	r.mu.Lock()
	defer r.mu.Unlock()
	return id != 0 && r.finishing[id] > 0
}

// enter starts a call of the handler unless it has been removed.
func (r *registration) enter() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.removed {
		return false
	}
	r.inflight++
	return true
}

// leave ends a call that enter started.
func (r *registration) leave() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inflight--
	r.checkLocked()
}

// checkLocked closes othersDone once every call in progress waits in
// ShutdownChan, and shutdown once the handler is removed, its range
// registrations have shut down and no call is in progress.
func (r *registration) checkLocked() {
	if r.othersDone != nil && r.inflight <= r.waiting {
		select {
		case <-r.othersDone:
		default:
			close(r.othersDone)
		}
	}
	if r.removed && r.innerDone && r.inflight == 0 && !r.closed {
		r.closed = true
		close(r.shutdown)
	}
}

// startFinishing marks the calling goroutine as delivering deletes to the
// handler until the returned function is called.
func (r *registration) startFinishing(id uint64) (done func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finishing == nil {
		r.finishing = map[uint64]int{}
	}
	r.finishing[id]++
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.finishing[id]--; r.finishing[id] == 0 {
			delete(r.finishing, id)
		}
	}
}

// AddEventHandler registers handler with the default resync period.
func (s *ShardedInformer) AddEventHandler(handler informer.ResourceEventHandler) (informer.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, informer.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod registers handler with its own resync
// period.
func (s *ShardedInformer) AddEventHandlerWithResyncPeriod(handler informer.ResourceEventHandler, resyncPeriod time.Duration) (informer.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, informer.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions registers handler on every owned range's
// informer and on those started later, with options. Its calls are
// serialised across ranges unless options.Workers > 1.
func (s *ShardedInformer) AddEventHandlerWithOptions(handler informer.ResourceEventHandler, options informer.HandlerOptions) (informer.ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errors.New("event handler is nil")
	}
	if s.lw == nil {
		return nil, errors.New("sharding: nil ListerWatcher")
	}
	// Fail early on options a range informer would refuse.
	if err := options.Validate(); err != nil {
		return nil, err
	}
	reg := &registration{s: s, opts: options, synced: newDoneChecker("handler " + options.Name), shutdown: make(chan struct{})}
	reg.handler = &removableHandler{reg: reg, h: handler}
	if options.Workers <= 1 {
		reg.handler = &serialHandler{h: reg.handler}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, errors.New("sharding: informer has stopped")
	}
	s.handlers = append(s.handlers, reg)
	for _, ri := range s.ranges {
		s.addToRangeLocked(ri.ctx, ri, reg)
	}
	return reg, nil
}

// RemoveEventHandler removes a registration from every range; what it had
// pending is dropped. It does not wait for a call in progress (see
// informer.ShutDownEventHandler).
func (s *ShardedInformer) RemoveEventHandler(handle informer.ResourceEventHandlerRegistration) error {
	reg, ok := handle.(*registration)
	if !ok || reg.s != s {
		return nil // unknown registrations are ignored, as by informer's
	}
	reg.mu.Lock()
	already := reg.removed
	reg.removed = true
	reg.mu.Unlock()
	if already {
		return nil
	}
	var inner []innerRegistration
	var infs []informer.SharedIndexInformer
	s.mu.Lock()
	for i, h := range s.handlers {
		if h == reg {
			s.handlers = append(s.handlers[:i:i], s.handlers[i+1:]...)
			break
		}
	}
	for _, ri := range s.ranges {
		if rr, ok := ri.regs[reg]; ok {
			inner = append(inner, innerRegistration{rr, ri.outside[reg]})
			infs = append(infs, ri.inf)
			delete(ri.regs, reg)
			delete(ri.trackers, reg)
			delete(ri.outside, reg)
		}
	}
	// A draining range's maps are left as they are (finishRange reads
	// them): the drain stops waiting for the handler, and no delete is
	// delivered to it.
	for _, ri := range s.draining {
		if rr, ok := ri.regs[reg]; ok {
			inner = append(inner, innerRegistration{rr, ri.outside[reg]})
			infs = append(infs, ri.inf)
			ri.trackers[reg].abandon()
		}
	}
	s.mu.Unlock()
	reg.mu.Lock()
	reg.inner = inner
	reg.mu.Unlock()
	for i, in := range inner {
		if err := infs[i].RemoveEventHandler(in.rr); err != nil {
			return err
		}
	}
	s.wg.Go(func() {
		for _, in := range inner {
			if in.outside != nil {
				<-in.outside
			}
		}
		reg.mu.Lock()
		defer reg.mu.Unlock()
		reg.innerDone = true
		reg.checkLocked()
	})
	return nil
}

// removableHandler calls the handler of reg until it is removed, counting the
// calls in progress for ShutdownChan. A call that would start after the
// removal (one that waited for another range's call, say) is dropped, as
// the rest of what was pending for the handler is.
type removableHandler struct {
	reg *registration
	h   informer.ResourceEventHandler
}

func (g *removableHandler) OnAdd(obj interface{}, isInInitialList bool) {
	if g.reg.enter() {
		defer g.reg.leave()
		g.h.OnAdd(obj, isInInitialList)
	}
}

func (g *removableHandler) OnUpdate(oldObj, newObj interface{}) {
	if g.reg.enter() {
		defer g.reg.leave()
		g.h.OnUpdate(oldObj, newObj)
	}
}

func (g *removableHandler) OnDelete(obj interface{}) {
	if g.reg.enter() {
		defer g.reg.leave()
		g.h.OnDelete(obj)
	}
}

// serialHandler calls a handler from one range at a time, so a handler
// written for one informer (sequential calls) works on a sharded one. The
// lock (a channel, so that a test's synctest bubble sees a waiting range as
// durably blocked) guards nothing but the call: no internal state is
// touched under it.
type serialHandler struct {
	once sync.Once
	lock chan struct{}
	h    informer.ResourceEventHandler
}

func (s *serialHandler) acquire() {
	s.once.Do(func() { s.lock = make(chan struct{}, 1) })
	s.lock <- struct{}{}
}

func (s *serialHandler) release() { <-s.lock }

// acquireUnless takes the turn unless stop is closed first (or by then).
func (s *serialHandler) acquireUnless(stop <-chan struct{}) bool {
	s.once.Do(func() { s.lock = make(chan struct{}, 1) })
	select {
	case <-stop:
		return false
	default:
	}
	select {
	case s.lock <- struct{}{}:
	case <-stop:
		return false
	}
	select {
	case <-stop:
		<-s.lock
		return false
	default:
		return true
	}
}

func (s *serialHandler) OnAdd(obj interface{}, isInInitialList bool) {
	s.acquire()
	defer s.release()
	s.h.OnAdd(obj, isInInitialList)
}

func (s *serialHandler) OnUpdate(oldObj, newObj interface{}) {
	s.acquire()
	defer s.release()
	s.h.OnUpdate(oldObj, newObj)
}

func (s *serialHandler) OnDelete(obj interface{}) {
	s.acquire()
	defer s.release()
	s.h.OnDelete(obj)
}

// doneChecker is a DoneChecker finished once, by finish.
type doneChecker struct {
	name string
	once sync.Once
	done chan struct{}
}

func newDoneChecker(name string) *doneChecker {
	return &doneChecker{name: name, done: make(chan struct{})}
}

// Name names the checker.
func (d *doneChecker) Name() string { return d.name }

// Done is closed once finished.
func (d *doneChecker) Done() <-chan struct{} { return d.done }

func (d *doneChecker) finish() { d.once.Do(func() { close(d.done) }) }
