package listener

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// ProcessorOptions configures a Processor.
type ProcessorOptions struct {
	// Clock drives resync times and the wait after a handler panic. Nil
	// means the real clock.
	Clock clock.Clock
	// Logger is used for the processor's own messages. The zero value means
	// klog.Background().
	Logger klog.Logger
}

// Processor distributes notifications to its listeners, one per handler
// (client-go's sharedProcessor). All methods are safe for concurrent use.
//
// Distribute takes no lock of the processor's: it reads an immutable
// listenerSet that AddListener, RemoveListener, ShouldResync and Run
// replace under mu, so that a handoff that waits (the classic engine's
// channel send, OverflowBlock) never holds up those calls.
type Processor struct {
	clock  clock.Clock
	base   time.Time // when the processor was created; see now
	logger klog.Logger

	set       atomic.Pointer[listenerSet] // the listeners Distribute hands to; replaced under mu
	unblocked atomic.Bool                 // Unblock was called: listeners added later start unblocked

	// mu serialises the changes of set, started and the readers of log.
	// Nothing that waits is done under it.
	mu      sync.Mutex
	started bool // Run has started the listeners and not yet stopped them
	// log is the fan-out of the listeners whose engine reads it. Its
	// readers join and leave only under mu.
	log sharedLog

	wg sync.WaitGroup // the listeners' goroutines
}

// member is one listener in a listenerSet.
type member struct {
	l    *Listener
	sync bool // taking sync notifications, as the last ShouldResync decided
}

// listenerSet is a snapshot of the processor's listeners. It is never
// changed once published: the processor publishes a new one instead.
type listenerSet struct {
	started bool
	// changed is closed when a later set has a different started, or the
	// listeners were cleared by Run; Distribute waits on it for Run.
	changed chan struct{}
	all     []member // in the order they were added
	logged  []member // the members of all that read log
	queued  []member // the members of all that do not
	// logAllSync is true when every member of logged takes sync
	// notifications, so that a sync notification can go through log.
	logAllSync bool
}

// newListenerSet returns the set of all, started or not, whose changed is
// changed.
func newListenerSet(started bool, changed chan struct{}, all []member) *listenerSet {
	s := &listenerSet{started: started, changed: changed, all: all, logAllSync: true}
	for _, m := range all {
		if m.l.engine.readsLog() {
			s.logged = append(s.logged, m)
			s.logAllSync = s.logAllSync && m.sync
		} else {
			s.queued = append(s.queued, m)
		}
	}
	return s
}

// index returns l's position in s.all, or -1.
func (s *listenerSet) index(l *Listener) int {
	return slices.IndexFunc(s.all, func(m member) bool { return m.l == l })
}

// NewProcessor returns a processor with no listeners.
func NewProcessor(opts ProcessorOptions) *Processor {
	p := &Processor{clock: opts.Clock, logger: opts.Logger}
	if p.clock == nil {
		p.clock = clock.RealClock{}
	}
	p.base = p.clock.Now()
	if p.logger.GetSink() == nil {
		p.logger = klog.Background()
	}
	p.set.Store(newListenerSet(false, make(chan struct{}), nil))
	return p
}

// now is the time on the processor's clock, in nanoseconds since the
// processor was created: the enqueue time of the notifications it hands out.
func (p *Processor) now() int64 { return int64(p.clock.Since(p.base)) }

// NewListener returns a listener for handler, bound to the informer by b
// and configured by opts, using the processor's clock. It is not yet added:
// pass it to [Processor.AddListener]. opts must have passed
// [Options.Validate]: the caller validates them once, before it changes
// anything for the registration. It fails if handler or
// b.UpstreamHasSynced is nil, or a period in b is negative.
func (p *Processor) NewListener(handler Handler, b Binding, opts Options) (*Listener, error) {
	return newListener(p, handler, b, opts)
}

// AddListener adds l, marked as taking sync notifications, and reports
// whether the processor is running. If it is, l's delivery goroutines start
// at once but its sync watch does not: the caller first replays the initial
// list to it, then calls [Processor.StartWatchSynced]. l must
// come from this processor's NewListener and not have been added before.
// A Distribute already under way may or may not hand its notification to l;
// every later one does.
func (p *Processor) AddListener(l *Listener) (started bool, err error) {
	if l == nil {
		return false, errors.New("listener: AddListener of a nil listener")
	}
	if l.owner != p {
		return false, errors.New("listener: listener belongs to another processor")
	}
	if !l.added.CompareAndSwap(false, true) {
		return false, fmt.Errorf("listener: %s was already added", l.name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l.engine.join()
	if p.started {
		// Before l is published, so that no Distribute finds it idle.
		l.engine.start(&p.wg)
	}
	old := p.set.Load()
	p.set.Store(newListenerSet(old.started, old.changed, append(slices.Clone(old.all), member{l: l, sync: true})))
	// Unblock stores unblocked before it loads set; this loads unblocked
	// after storing set: one of the two sees the other.
	if p.unblocked.Load() {
		l.engine.unblock()
	}
	return p.started, nil
}

// StartWatchSynced starts l's sync watch, after the caller has replayed the
// initial list to a listener added while the processor was running. It does
// nothing if the processor is not running or l is no longer in it (Run starts
// the watch itself, and a stopped listener cannot sync).
func (p *Processor) StartWatchSynced(l *Listener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started && p.set.Load().index(l) >= 0 {
		p.wg.Go(l.watchSynced)
	}
}

// Unblock makes every listener, including ones added later, stop waiting
// for room under OverflowBlock: an Add waiting for room, and every later one,
// drops its notification. The informer calls it when it begins to stop, so
// that a Distribute blocked by OverflowBlock cannot keep its controller
// (which holds the informer's delta lock) from returning.
func (p *Processor) Unblock() {
	p.unblocked.Store(true)
	for _, m := range p.set.Load().all {
		m.l.engine.unblock()
	}
}

// RemoveListener removes the listener behind handle. Pending notifications
// are dropped, and so is a notification a Distribute under way is handing
// to it; the listener's ShutdownChan closes once its handler call in
// progress, if any, has returned (at once if the processor is not running).
// It does not wait for that. A handle that is not a *Listener is an error; an
// unknown or already removed listener is not.
func (p *Processor) RemoveListener(handle any) error {
	l, ok := handle.(*Listener)
	if !ok {
		return fmt.Errorf("invalid key type %T", handle)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.set.Load()
	i := old.index(l)
	if i < 0 {
		return nil
	}
	p.set.Store(newListenerSet(old.started, old.changed, slices.Delete(slices.Clone(old.all), i, i+1)))
	l.engine.leave()
	// Closing stopCh also frees a Distribute waiting to hand l a
	// notification.
	l.stop()
	if !p.started {
		close(l.runFinished)
	}
	return nil
}

// Distribute hands n to every listener, or, if sync is true, only to the
// listeners marked by the last ShouldResync (all of them until then). The
// listeners that read the shared log take it with one append for all of
// them; the others (overload options, classic engine) then take it one by
// one, in the order they were added. While the processor has listeners but
// is not running, Distribute waits for Run. It never waits for a handler,
// only for each listener to take n (and, under OverflowBlock, for room),
// and it holds no lock of the processor's while it waits. An informer
// distributes through its [Hub] instead, which splits these two parts
// around its delta lock.
func (p *Processor) Distribute(n Notification, sync bool) {
	h := p.beginDistribute(n, sync)
	h.finish()
}

// handoff is what is left of a distribution after beginDistribute:
// handing the notification to the listeners that do not read the shared
// log, which may wait (the classic engine's channel send, OverflowBlock).
// Its listeners were fixed by beginDistribute: one added later does not
// get the notification, one removed since drops it. The zero handoff has
// nothing to hand over.
type handoff struct {
	n    Notification
	at   int64
	sync bool
	s    *listenerSet // nil: nothing to hand over
}

// beginDistribute does the part of Distribute that never waits for a
// listener: it fixes the listeners that get n, and appends n to the shared
// log for those that read it. The rest is handoff.finish, called in the
// order of the beginDistribute calls, possibly after the caller released a
// lock (the Hub's delta lock). Like Distribute, it waits for Run while the
// processor has listeners but is not running.
func (p *Processor) beginDistribute(n Notification, sync bool) handoff {
	s := p.set.Load()
	for !s.started && len(s.all) > 0 {
		<-s.changed
		s = p.set.Load()
	}
	if len(s.all) == 0 {
		return handoff{}
	}
	at := p.now() // one clock read for every listener
	if len(s.logged) > 0 {
		if !sync || s.logAllSync {
			p.log.write(n, at)
		} else {
			for _, m := range s.logged {
				if m.sync {
					m.l.engine.add(n, at)
				}
			}
		}
	}
	if len(s.queued) == 0 {
		return handoff{}
	}
	return handoff{n: n, at: at, sync: sync, s: s}
}

// finish hands the notification to the listeners fixed by beginDistribute
// that do not read the shared log, one by one in the order they were
// added. It waits for each to take it (under OverflowBlock, for room),
// never for a handler.
func (h *handoff) finish() {
	if h.s == nil {
		return
	}
	for _, m := range h.s.queued {
		if !h.sync || m.sync {
			m.l.engine.add(h.n, h.at)
		}
	}
}

// Run starts every listener's goroutines, blocks until ctx is done, then
// stops every listener (dropping what is pending), removes them all and
// waits for their goroutines to return. A processor runs once.
func (p *Processor) Run(ctx context.Context) {
	p.mu.Lock()
	old := p.set.Load()
	for _, m := range old.all {
		p.wg.Go(m.l.watchSynced)
		m.l.engine.start(&p.wg)
	}
	p.started = true
	p.set.Store(newListenerSet(true, make(chan struct{}), old.all))
	close(old.changed)
	p.mu.Unlock()

	<-ctx.Done()

	p.mu.Lock()
	old = p.set.Load()
	for _, m := range old.all {
		// Closing stopCh also frees a Distribute waiting on the listener.
		m.l.stop()
		m.l.engine.leave()
	}
	p.started = false
	p.set.Store(newListenerSet(false, make(chan struct{}), nil))
	close(old.changed)
	p.mu.Unlock()

	// Waiting outside the lock lets a handler that is finishing call back
	// into the processor (for example to remove itself).
	p.wg.Wait()
}

// ShouldResync marks each listener as taking sync notifications if its
// resync is due (and schedules its next one), unmarks the others, and
// reports whether any is due. The marks stay until the next call.
func (p *Processor) ShouldResync() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	due := false
	old := p.set.Load()
	all := make([]member, len(old.all))
	for i, m := range old.all {
		should := m.l.shouldResync(now)
		all[i] = member{l: m.l, sync: should}
		if should {
			due = true
			m.l.determineNextResync(now)
		}
	}
	p.set.Store(newListenerSet(old.started, old.changed, all))
	return due
}

// ResyncCheckPeriodChanged recomputes every listener's resync period from
// its requested period and the informer's new check period, with
// DetermineResyncPeriod.
func (p *Processor) ResyncCheckPeriodChanged(logger klog.Logger, check time.Duration) {
	for _, m := range p.set.Load().all {
		m.l.setResyncPeriod(DetermineResyncPeriod(logger, m.l.RequestedResyncPeriod(), check))
	}
}
