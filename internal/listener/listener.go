package listener

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	utiltrace "k8s.io/utils/trace"

	"github.com/kfanout/fanout/internal/informermetrics"
	"github.com/kfanout/fanout/internal/synctrack"
)

// initialBufferSize is client-go's initial listener buffer size, and the
// number of pending notifications above which each handler call is traced.
const initialBufferSize = 1024

// crashWait is how long a listener waits after a handler panic (with
// utilruntime.ReallyCrash false) before it delivers the next notification.
const crashWait = time.Second

// Listener relays notifications from a Processor to one Handler. It is also
// the registration handle the informer returns from AddEventHandler.
//
// Its goroutines are started by the Processor that created it, and a
// Listener is added to that processor at most once. Once removed or stopped
// it cannot be reused.
type Listener struct {
	logger  klog.Logger
	clock   clock.Clock
	handler Handler
	name    string
	owner   *Processor

	engine engine
	config Config // what Config reports; set once, at creation

	syncTracker       *synctrack.SingleFileTracker
	upstreamHasSynced synctrack.DoneChecker

	keyFunc       func(obj any) (string, error) // may be nil
	recoverPanics bool

	metrics       *metrics      // nil without a provider
	backlog       backlogWatch  // serialised by the engine
	slowThreshold time.Duration // 0: off
	slow          slowLog
	panicLog      panicLog // RecoverPanics only
	callers       callers  // the goroutines calling the handler

	added       atomic.Bool   // set by Processor.AddListener
	running     atomic.Bool   // the engine's goroutines were started
	stopCh      chan struct{} // closed by the processor: take no more notifications, drop pending ones
	runFinished chan struct{} // closed when the engine calls the handler no more (or on removal before start)

	delivered atomic.Uint64 // handler calls made, panicked ones included (countCalls only)
	// countCalls is false for the log reader, which counts its handler
	// calls by its cursor: an atomic add per call cost a tenth of the CPU
	// per delivery at 10 handlers.
	countCalls bool
	seqs       seqWatch // the Seqs the handler has returned from
	waitSeq    func(ctx context.Context, resourceVersion string) (uint64, error)
	panics     atomic.Uint64 // handler calls that panicked

	resyncMu              sync.Mutex // guards the fields below
	requestedResyncPeriod time.Duration
	resyncPeriod          time.Duration
	nextResync            time.Time
}

func newListener(p *Processor, handler Handler, b Binding, opts Options) (*Listener, error) {
	if handler == nil {
		return nil, errors.New("listener: handler is nil")
	}
	if err := b.validate(); err != nil {
		return nil, fmt.Errorf("listener: %w", err)
	}
	th, err := backlogThresholds(opts.BacklogWarnThresholds) // the caller validated opts
	if err != nil {
		return nil, fmt.Errorf("listener: %w", err)
	}
	name := opts.Name
	if name == "" {
		name = NameForHandler(handler)
	}
	logger := opts.Logger
	if logger.GetSink() == nil {
		logger = klog.Background()
	}
	size := opts.BufferSize
	if size <= 0 {
		size = initialBufferSize
	}
	l := &Listener{
		logger:                logger,
		clock:                 p.clock,
		handler:               handler,
		name:                  name,
		owner:                 p,
		syncTracker:           synctrack.NewSingleFileTracker(fmt.Sprintf("%s + event handler %s", b.UpstreamHasSynced.Name(), name)),
		upstreamHasSynced:     b.UpstreamHasSynced,
		keyFunc:               opts.KeyFunc,
		recoverPanics:         opts.RecoverPanics,
		stopCh:                make(chan struct{}),
		runFinished:           make(chan struct{}),
		requestedResyncPeriod: b.RequestedResyncPeriod,
		resyncPeriod:          b.ResyncPeriod,
		backlog:               newBacklogWatch(th),
		slowThreshold:         max(opts.SlowHandlerThreshold, 0),
		waitSeq:               b.WaitSeq,
	}
	l.metrics = newMetrics(b.Metrics, informermetrics.ListenerID{Informer: b.MetricsInformer, Handler: name})
	l.engine = newEngine(l, p, size, opts)
	_, fromLog := l.engine.(*logReader)
	l.countCalls = !fromLog
	l.config = configOf(l.engine, opts)
	l.determineNextResync(p.clock.Now())
	return l, nil
}

// Name returns the handler's name.
func (l *Listener) Name() string { return l.name }

// HasSynced reports whether the informer has synced and every initial-list
// Add handed to this listener has been processed by the handler.
func (l *Listener) HasSynced() bool { return l.syncTracker.HasSynced() }

// HasSyncedChecker returns the checker behind HasSynced; its Done channel is
// closed when HasSynced becomes true.
func (l *Listener) HasSyncedChecker() synctrack.DoneChecker { return l.syncTracker }

// ShutdownChan returns a channel that is closed once the listener will call
// its handler no more: after the listener's run has returned, or at once if
// the listener is removed before the processor started.
//
// Called from inside one of the handler's own calls once the listener has
// been removed (ShutDownEventHandler from the handler itself), it returns a
// channel that is closed once the handler's other calls, on other workers,
// have returned: waiting for the run to end would wait for the very call
// it is made from, which is a deadlock in client-go. When the call returns,
// the handler is called no more, as after RemoveEventHandler from inside a
// handler in client-go. A wait from another goroutine that the handler
// started and waits for is not recognised, and still deadlocks.
func (l *Listener) ShutdownChan() <-chan struct{} {
	if l.stopped() {
		if ch := l.selfShutdownChan(); ch != nil {
			return ch
		}
	}
	return l.runFinished
}

// add hands n to the listener alone; it never waits for the handler. On the
// classic engine it blocks until the listener's goroutine has taken n, so on
// a classic listener whose goroutines have not been started it blocks; the
// direct engine queues n and returns. Either way it returns at once,
// dropping n, once the listener has been removed or its processor stopped.
// An initial-list add is counted by HasSynced before it is handed over.
//
// Under OverflowBlock add first waits for room, as a distributed
// notification does. [Hub.Register] replays the informer's store to a
// listener that joins a running processor without that wait.
func (l *Listener) add(n Notification) { l.engine.add(n, l.owner.now()) }

// replay is [Listener.add] for a notification of the handler's starting
// state: the informer's store, replayed by [Hub.Register] as initial-list
// adds to a listener that joins a running processor. It never waits for
// room: under OverflowBlock the replay is queued whatever MaxPending is (the handler
// cannot push back on its starting state), and only notifications added
// after it wait for room, so Pending may exceed MaxPending by at most the
// replay's size until the handler has drained it. Under the other policies
// it is Add.
func (l *Listener) replay(n Notification) { l.engine.replay(n, l.owner.now()) }

// Stats returns a snapshot of the listener's counters.
func (l *Listener) Stats() Stats {
	s := l.engine.stats()
	if l.countCalls {
		s.Delivered = l.delivered.Load()
	}
	s.Panics = l.panics.Load()
	return s
}

// Engine returns the engine the listener runs on.
func (l *Listener) Engine() Engine { return l.engine.kind() }

// stop makes the listener take no more notifications and drop what is
// pending. The processor calls it once, under its lock.
func (l *Listener) stop() {
	close(l.stopCh)
	l.engine.stop()
	if !l.running.Load() {
		l.releaseMetrics()
	}
}

// finished is deferred by the engine's goroutine that calls the handler:
// the handler will be called no more, so the panics not yet logged are
// summarised, the metrics are released and ShutdownChan closes.
func (l *Listener) finished() {
	if l.recoverPanics {
		l.endPanicLog()
	}
	l.releaseMetrics()
	close(l.runFinished)
}

// releaseMetrics releases the metrics, once.
func (l *Listener) releaseMetrics() {
	if l.metrics != nil {
		l.metrics.release()
	}
}

// notePending is called by the engine wherever its pending count changes,
// serialised with every other change (the classic pump; the direct
// engine's lock held). It returns the backlog message to log, which the
// engine passes to pendingChanged once it has let go of its lock.
func (l *Listener) notePending(p int64) backlogEvent {
	if l.metrics != nil {
		l.metrics.notePending(p)
	}
	return l.backlog.observe(p, l.clock.Now)
}

// pendingChanged publishes the pending gauges and logs ev; the engine calls
// it after notePending, outside its lock.
func (l *Listener) pendingChanged(p int64, ev backlogEvent) {
	if m := l.metrics; m != nil {
		m.publish()
		if p > 0 {
			m.armAge(l)
		}
	}
	if ev.kind != 0 {
		l.logBacklog(ev)
	}
}

// setOldestAge sets the oldest-pending-age gauge, if there is one.
func (l *Listener) setOldestAge(age time.Duration) {
	if l.metrics != nil {
		l.metrics.oldestAge.Set(age.Seconds())
	}
}

// stopped reports whether stop has been called.
func (l *Listener) stopped() bool {
	select {
	case <-l.stopCh:
		return true
	default:
		return false
	}
}

// watchSynced waits for the informer to sync, then tells the sync tracker;
// it gives up when the listener is stopped.
func (l *Listener) watchSynced() {
	select {
	case <-l.upstreamHasSynced.Done():
		l.syncTracker.UpstreamHasSynced()
	case <-l.stopCh:
	}
}

// keyOf returns obj's key for logs, or a description of why there is none.
func (l *Listener) keyOf(obj any) string {
	if l.keyFunc == nil {
		return fmt.Sprintf("%T", obj)
	}
	k, err := l.keyFunc(obj)
	if err != nil {
		return fmt.Sprintf("%T (no key: %v)", obj, err)
	}
	return k
}

// deliver calls the handler for n; pending is the engine's current backlog.
// With RecoverPanics a panic is recovered by recoverPanic. Otherwise it goes
// to utilruntime.HandleCrashWithLogger, which re-panics (crashing the
// process) unless utilruntime.ReallyCrash is false; in that case n is
// skipped and deliver reports crashed, and the engine waits waitAfterCrash
// before its next delivery.
//
// With traced, a call made while more than initialBufferSize notifications
// are pending is timed and logged if slow, as client-go's "processorListener
// handler" trace; engines pass it when a traceGate says a trace could be
// logged.
func (l *Listener) deliver(n Notification, pending int64, traced bool) (crashed bool) {
	if traced && pending > initialBufferSize {
		defer l.traceSlowCall(time.Now(), pending)
	}
	if l.countCalls {
		l.delivered.Add(1)
	}
	if l.metrics != nil {
		l.metrics.delivered.Inc()
	}
	if l.recoverPanics {
		defer l.recoverPanic(n)
		l.call(n, pending)
		return false
	}
	crashed = true
	defer func() {
		if crashed {
			l.countPanic()
		}
	}()
	defer utilruntime.HandleCrashWithLogger(l.logger)
	l.call(n, pending)
	crashed = false
	return crashed
}

// call calls the handler method for n and marks an initial-list add
// finished once OnAdd has returned.
func (l *Listener) call(n Notification, pending int64) {
	timed := l.metrics != nil || l.slowThreshold > 0
	var start time.Time
	if timed {
		start = l.clock.Now()
	}
	switch n.Kind {
	case Add:
		l.handler.OnAdd(n.Obj, n.IsInInitialList)
	case Update:
		l.handler.OnUpdate(n.OldObj, n.Obj)
	case Delete:
		l.handler.OnDelete(n.Obj)
	}
	if timed {
		l.observeCall(n, l.clock.Since(start))
	}
	if n.initialListAdd() {
		l.syncTracker.Finished()
	}
}

// observeCall records one handler call that returned after d: the duration
// histogram, and the slow-call message when d reaches the threshold.
// Calls that panic are not observed.
func (l *Listener) observeCall(n Notification, d time.Duration) {
	if l.metrics != nil {
		l.metrics.duration.Observe(d.Seconds())
	}
	if l.slowThreshold > 0 && d >= l.slowThreshold {
		l.warnSlowCall(n, d)
	}
}

// countPanic counts a handler call that panicked.
func (l *Listener) countPanic() {
	l.panics.Add(1)
	if l.metrics != nil {
		l.metrics.panics.Inc()
	}
}

// waitAfterCrash pauses for crashWait on the listener's clock.
func (l *Listener) waitAfterCrash() {
	<-l.clock.After(crashWait)
}

// slowTraceThreshold is how long a handler call made while more than
// initialBufferSize notifications are pending may take before it is logged
// as client-go's "processorListener handler" trace.
const slowTraceThreshold = 100 * time.Millisecond

// traceSlowCall is client-go's "processorListener handler" trace, for a
// call made while pending notifications were waiting: when the handler
// call that began at start has taken slowTraceThreshold or more, it logs
// what client-go's trace does (at klog verbosity 2). It builds the trace
// only when it logs, so that fast calls allocate nothing for it. It is
// separate from warnSlowCall, the SlowHandlerThreshold warning.
func (l *Listener) traceSlowCall(start time.Time, pending int64) {
	elapsed := time.Since(start)
	if elapsed < slowTraceThreshold {
		return
	}
	fields := []utiltrace.Field{
		{Key: "handler", Value: l.name},
		{Key: "pendingNotifications", Value: pending},
		{Key: "started", Value: start},
	}
	trace := utiltrace.New("processorListener handler", fields...)
	trace.Step("handler returned", utiltrace.Field{Key: "took", Value: elapsed})
	trace.Log()
}
