package listener

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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
type Processor struct {
	clock  clock.Clock
	base   time.Time // when the processor was created; see now
	logger klog.Logger

	mu sync.RWMutex
	// startedCond is signalled when started changes or the listeners are
	// cleared; its Locker is mu.RLocker(), so Distribute waits holding a
	// read lock.
	startedCond *sync.Cond
	started     bool               // Run has started the listeners and not yet stopped them
	listeners   map[*Listener]bool // value: is the listener taking sync notifications
	ordered     []*Listener        // the listeners in the order they were added
	queued      []*Listener        // the listeners in ordered that do not read log
	// log is the fan-out of the listeners whose engine is a logReader.
	// Its readers change only under mu's write lock.
	log sharedLog
	// logAllSync is true when every reader of log takes sync notifications,
	// so that a sync notification can go through log.
	logAllSync bool

	wg sync.WaitGroup // the listeners' goroutines

	// blockMu guards the listeners that can block Distribute
	// (OverflowBlock); it is never held while waiting for mu.
	blockMu   sync.Mutex
	blockers  map[*Listener]struct{}
	unblocked bool // Unblock was called: new blockers start unblocked
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
	p.startedCond = sync.NewCond(p.mu.RLocker())
	return p
}

// now is the time on the processor's clock, in nanoseconds since the
// processor was created: the enqueue time of the notifications it hands out.
func (p *Processor) now() int64 { return int64(p.clock.Since(p.base)) }

// NewListener returns a listener for handler, using the processor's clock.
// It is not yet added: pass it to AddListener. It fails if handler or
// opts.UpstreamHasSynced is nil or a period is negative.
func (p *Processor) NewListener(handler Handler, opts Options) (*Listener, error) {
	return newListener(p, handler, opts)
}

// AddListener adds l, marked as taking sync notifications, and reports
// whether the processor is running. If it is, l's delivery goroutines start
// at once but its sync watch does not: the caller first replays the initial
// list with l.Add, then calls StartWatchSynced. l must come from this
// processor's NewListener and not have been added before.
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
	p.trackBlocker(l)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listeners == nil {
		p.listeners = make(map[*Listener]bool)
	}
	p.listeners[l] = true
	p.ordered = append(p.ordered, l)
	if r, ok := l.engine.(*logReader); ok {
		p.log.attach(r)
	} else {
		p.queued = append(p.queued, l)
	}
	p.updateLogAllSync()
	if p.started {
		l.engine.start(&p.wg)
	}
	return p.started, nil
}

// StartWatchSynced starts l's sync watch, after the caller has replayed the
// initial list to a listener added while the processor was running. It does
// nothing if the processor is not running or l is no longer in it (Run starts
// the watch itself, and a stopped listener cannot sync).
func (p *Processor) StartWatchSynced(l *Listener) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if _, ok := p.listeners[l]; ok && p.started {
		p.wg.Go(l.watchSynced)
	}
}

// UnblockListener makes the listener behind handle stop waiting for room
// under OverflowBlock: an Add waiting for room, and every later one, drops its
// notification. A caller about to remove the listener while holding a lock
// that Distribute also holds (the informer's delta lock) calls it first, so a
// Distribute blocked on the listener can return. RemoveListener does it
// itself. Handles that are not this processor's listeners are ignored.
func (p *Processor) UnblockListener(handle any) {
	if l, ok := handle.(*Listener); ok && l != nil && l.owner == p {
		l.engine.unblock()
	}
}

// Unblock is UnblockListener for every listener, including ones added
// later: the informer calls it when it begins to stop, so that a Distribute
// blocked by OverflowBlock cannot keep its controller from returning.
func (p *Processor) Unblock() {
	p.blockMu.Lock()
	defer p.blockMu.Unlock()
	p.unblocked = true
	for l := range p.blockers {
		l.engine.unblock()
	}
}

// trackBlocker remembers l if its engine can block Distribute, so that
// Unblock reaches it without the main lock (which a blocked Distribute
// holds).
func (p *Processor) trackBlocker(l *Listener) {
	if !l.engine.canBlock() {
		return
	}
	p.blockMu.Lock()
	defer p.blockMu.Unlock()
	if p.unblocked {
		l.engine.unblock()
	}
	if p.blockers == nil {
		p.blockers = make(map[*Listener]struct{})
	}
	p.blockers[l] = struct{}{}
}

// forgetBlocker undoes trackBlocker.
func (p *Processor) forgetBlocker(l *Listener) {
	p.blockMu.Lock()
	defer p.blockMu.Unlock()
	delete(p.blockers, l)
}

// RemoveListener removes the listener behind handle. Pending notifications
// are dropped; the listener's ShutdownChan closes once its handler call in
// progress, if any, has returned (at once if the processor is not running).
// It does not wait for that. A handle that is not a *Listener is an error; an
// unknown or already removed listener is not.
func (p *Processor) RemoveListener(handle any) error {
	l, ok := handle.(*Listener)
	if !ok {
		return fmt.Errorf("invalid key type %T", handle)
	}
	if l != nil && l.owner == p {
		// Free a Distribute blocked on l before waiting for the lock it holds.
		l.engine.unblock()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.listeners[l]; !ok {
		return nil
	}
	delete(p.listeners, l)
	p.ordered = slices.DeleteFunc(p.ordered, func(m *Listener) bool { return m == l })
	p.queued = slices.DeleteFunc(p.queued, func(m *Listener) bool { return m == l })
	if r, ok := l.engine.(*logReader); ok {
		p.log.detach(r)
	}
	p.updateLogAllSync()
	p.forgetBlocker(l)
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
// only for each listener to take n (and, under OverflowBlock, for room).
func (p *Processor) Distribute(n Notification, sync bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for !p.started && len(p.listeners) > 0 {
		p.startedCond.Wait()
	}
	var at int64
	if len(p.ordered) > 0 {
		at = p.now() // one clock read for every listener
	}
	if len(p.log.readers) > 0 {
		if !sync || p.logAllSync {
			p.log.write(n, at)
		} else {
			for _, r := range p.log.readers {
				if p.listeners[r.l] {
					r.add(n, at)
				}
			}
		}
	}
	for _, l := range p.queued {
		if !sync || p.listeners[l] {
			l.engine.add(n, at)
		}
	}
}

// updateLogAllSync recomputes logAllSync; mu's write lock held.
func (p *Processor) updateLogAllSync() {
	p.logAllSync = true
	for _, r := range p.log.readers {
		if !p.listeners[r.l] {
			p.logAllSync = false
			return
		}
	}
}

// Run starts every listener's goroutines, blocks until ctx is done, then
// stops every listener (dropping what is pending), removes them all and
// waits for their goroutines to return. A processor runs once.
func (p *Processor) Run(ctx context.Context) {
	p.mu.Lock()
	for l := range p.listeners {
		p.wg.Go(l.watchSynced)
		l.engine.start(&p.wg)
	}
	p.started = true
	p.startedCond.Broadcast()
	p.mu.Unlock()

	<-ctx.Done()

	// A Distribute blocked by OverflowBlock holds a read lock: free it.
	p.Unblock()
	p.mu.Lock()
	for l := range p.listeners {
		p.forgetBlocker(l)
		l.stop()
		if r, ok := l.engine.(*logReader); ok {
			p.log.detach(r)
		}
	}
	p.listeners = nil
	p.ordered = nil
	p.queued = nil
	p.started = false
	p.startedCond.Broadcast()
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
	for l := range p.listeners {
		should := l.shouldResync(now)
		p.listeners[l] = should
		if should {
			due = true
			l.determineNextResync(now)
		}
	}
	p.updateLogAllSync()
	return due
}

// ResyncCheckPeriodChanged recomputes every listener's resync period from
// its requested period and the informer's new check period, with
// DetermineResyncPeriod.
func (p *Processor) ResyncCheckPeriodChanged(logger klog.Logger, check time.Duration) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for l := range p.listeners {
		l.setResyncPeriod(DetermineResyncPeriod(logger, l.RequestedResyncPeriod(), check))
	}
}
