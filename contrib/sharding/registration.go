package sharding

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/kfanout/fanout/informer"
)

// registration is a handler registered on a ShardedInformer: one
// registration per owned range's informer, all calling handler.
type registration struct {
	s       *ShardedInformer
	handler informer.ResourceEventHandler // serialised unless Workers > 1
	opts    informer.HandlerOptions
	synced  *doneChecker

	mu       sync.Mutex
	removed  bool
	shutdown chan struct{} // closed when no range calls the handler any more
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
// handler any more (informer.ShutDownEventHandler waits for it).
func (r *registration) ShutdownChan() <-chan struct{} { return r.shutdown }

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
	if err := validateOptions(options); err != nil {
		return nil, err
	}
	h := handler
	if options.Workers <= 1 {
		h = &serialHandler{h: handler}
	}
	reg := &registration{s: s, handler: h, opts: options, synced: newDoneChecker("handler " + options.Name), shutdown: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, errors.New("sharding: informer has stopped")
	}
	s.handlers = append(s.handlers, reg)
	for _, ri := range s.ranges {
		s.addToRangeLocked(context.Background(), ri, reg)
	}
	return reg, nil
}

// validateOptions checks options against a throwaway informer that never
// runs.
func validateOptions(options informer.HandlerOptions) error {
	probe := informer.NewSharedIndexInformer(&informer.ListWatch{}, nil, 0, nil)
	_, err := probe.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{}, options)
	return err
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
	type pair struct {
		inf informer.SharedIndexInformer
		rr  informer.ResourceEventHandlerRegistration
	}
	var pairs []pair
	s.mu.Lock()
	for i, h := range s.handlers {
		if h == reg {
			s.handlers = append(s.handlers[:i:i], s.handlers[i+1:]...)
			break
		}
	}
	for _, ri := range s.ranges {
		if rr, ok := ri.regs[reg]; ok {
			pairs = append(pairs, pair{ri.inf, rr})
			delete(ri.regs, reg)
			delete(ri.trackers, reg)
		}
	}
	// A draining range's maps are left as they are (finishRange reads
	// them): the drain stops waiting for the handler, and no delete is
	// delivered to it.
	for _, ri := range s.draining {
		if rr, ok := ri.regs[reg]; ok {
			pairs = append(pairs, pair{ri.inf, rr})
			ri.trackers[reg].abandon()
		}
	}
	s.mu.Unlock()
	var chans []<-chan struct{}
	for _, p := range pairs {
		if err := p.inf.RemoveEventHandler(p.rr); err != nil {
			return err
		}
		if sc, ok := p.rr.(interface{ ShutdownChan() <-chan struct{} }); ok {
			chans = append(chans, sc.ShutdownChan())
		}
	}
	s.wg.Go(func() {
		for _, c := range chans {
			<-c
		}
		close(reg.shutdown)
	})
	return nil
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
