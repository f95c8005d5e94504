package listener

import (
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

// Options configures a Listener; see [Processor.NewListener]. Its fields
// come in two groups: what the handler's owner chooses (for the informer:
// HandlerOptions and SharedIndexInformerOptions.ListenerEngine), which
// [Options.Validate] checks, and what the informer computes for the
// registration.
type Options struct {
	// Name names the handler in logs and in the sync tracker's name.
	// Empty means NameForHandler(handler).
	Name string
	// Logger receives the listener's log messages and panic reports. The
	// zero value means klog.Background().
	Logger klog.Logger
	// Engine selects the delivery engine; the zero value is EngineDirect.
	// Any non-default overload option below (Overflow other than
	// OverflowGrow, Workers > 1, RecoverPanics) selects EngineDirect
	// whatever Engine says.
	Engine Engine
	// Overflow says what happens once more than MaxPending notifications
	// wait: OverflowGrow (buffer without bound), OverflowCoalesce (merge
	// per object key; MaxPending 0 means from the first pending one) or
	// OverflowBlock (Add waits for room; MaxPending must be > 0).
	Overflow OverflowPolicy
	// MaxPending is the threshold for Overflow; 0 means none. Negative is
	// an error.
	MaxPending int
	// Workers, when more than 1, calls the handler on that many goroutines;
	// notifications with the same KeyFunc key go to the same worker, in
	// order. Negative is an error.
	Workers int
	// RecoverPanics recovers a handler panic: it is logged with the handler
	// name and object key and counted, an initial-list add still counts as
	// finished for HasSynced, and the next notification follows at once.
	RecoverPanics bool
	// BacklogWarnThresholds are the pending counts at which the listener
	// logs that its handler is falling behind (once per crossing, and once
	// when the backlog drops below half the lowest again, which ends the
	// episode: a threshold is warned about again only after that; each at
	// most once per 10 s). Empty means DefaultBacklogWarnThresholds; a negative value
	// turns the messages off; 0 is an error.
	BacklogWarnThresholds []int
	// SlowHandlerThreshold, when positive, is how long one handler call
	// may take before the listener logs it with the object's key (at most
	// once per 10 s, counting the ones left out). 0 or negative means off,
	// the default: timing every call costs two clock reads per delivery
	// (free when Metrics is set, which times calls anyway).
	SlowHandlerThreshold time.Duration
	// BufferSize is the initial capacity of the pending buffer; 0 means
	// client-go's 1024.
	BufferSize int

	// The fields below are what the informer computes for the
	// registration.

	// UpstreamHasSynced is the informer's sync checker. Required.
	UpstreamHasSynced synctrack.DoneChecker
	// RequestedResyncPeriod is the resync period the handler asked for,
	// after the informer's minimum was applied. It is kept so that
	// [Processor.ResyncCheckPeriodChanged] can recompute ResyncPeriod.
	RequestedResyncPeriod time.Duration
	// ResyncPeriod is the period actually used, normally
	// DetermineResyncPeriod(RequestedResyncPeriod, the informer's check
	// period). Zero means never resync.
	ResyncPeriod time.Duration
	// KeyFunc returns an object's key (the informer's is
	// DeletionHandlingMetaNamespaceKeyFunc). Required by OverflowCoalesce
	// and by Workers > 1; used in panic logs when set. A notification
	// whose key fails is never merged and goes to the first worker.
	KeyFunc func(obj any) (string, error)
	// Metrics receives the listener's per-handler metrics, labelled with
	// MetricsInformer and the listener's name. Nil or the no-op provider
	// means none, at no cost on the delivery path.
	Metrics informermetrics.ListenerMetricsProvider
	// MetricsInformer is the informer name in the metrics' ListenerID.
	MetricsInformer string
}

// Validate checks the options a handler's owner chooses: the engine, the
// overload options (with KeyFunc where they need one) and the backlog
// thresholds. [Processor.NewListener] calls it; the informer calls it
// first, before it changes anything for the registration. Its errors name
// the field, without a package prefix.
func (o *Options) Validate() error {
	switch {
	case o.MaxPending < 0:
		return fmt.Errorf("MaxPending must not be negative, got %d", o.MaxPending)
	case o.Workers < 0:
		return fmt.Errorf("Workers must not be negative, got %d", o.Workers)
	case o.Overflow < OverflowGrow || o.Overflow > OverflowBlock:
		return fmt.Errorf("unknown overflow policy %v", o.Overflow)
	case o.Engine != EngineDirect && o.Engine != EngineClassic && o.Engine != engineDirectQueue:
		return fmt.Errorf("unknown engine %v", o.Engine)
	case o.Overflow == OverflowBlock && o.MaxPending == 0:
		return errors.New("MaxPending must be > 0 with OverflowBlock")
	case o.Overflow == OverflowCoalesce && o.KeyFunc == nil:
		return errors.New("OverflowCoalesce needs a KeyFunc")
	case o.Workers > 1 && o.KeyFunc == nil:
		return errors.New("Workers > 1 needs a KeyFunc")
	}
	_, err := backlogThresholds(o.BacklogWarnThresholds)
	return err
}

// needsDirect reports whether an overload option requires EngineDirect.
func (o *Options) needsDirect() bool {
	return o.Overflow != OverflowGrow || o.Workers > 1 || o.RecoverPanics
}

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

	added       atomic.Bool   // set by Processor.AddListener
	running     atomic.Bool   // the engine's goroutines were started
	stopCh      chan struct{} // closed by the processor: take no more notifications, drop pending ones
	runFinished chan struct{} // closed when the engine calls the handler no more (or on removal before start)

	delivered atomic.Uint64 // handler calls made, panicked ones included
	panics    atomic.Uint64 // handler calls that panicked

	resyncMu              sync.Mutex // guards the fields below
	requestedResyncPeriod time.Duration
	resyncPeriod          time.Duration
	nextResync            time.Time
}

func newListener(p *Processor, handler Handler, opts Options) (*Listener, error) {
	if handler == nil {
		return nil, errors.New("listener: handler is nil")
	}
	if opts.UpstreamHasSynced == nil {
		return nil, errors.New("listener: Options.UpstreamHasSynced is nil")
	}
	if opts.RequestedResyncPeriod < 0 || opts.ResyncPeriod < 0 {
		return nil, fmt.Errorf("listener: negative resync period (requested %v, effective %v)", opts.RequestedResyncPeriod, opts.ResyncPeriod)
	}
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("listener: %w", err)
	}
	th, _ := backlogThresholds(opts.BacklogWarnThresholds) // checked by Validate
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
		syncTracker:           synctrack.NewSingleFileTracker(fmt.Sprintf("%s + event handler %s", opts.UpstreamHasSynced.Name(), name)),
		upstreamHasSynced:     opts.UpstreamHasSynced,
		keyFunc:               opts.KeyFunc,
		recoverPanics:         opts.RecoverPanics,
		stopCh:                make(chan struct{}),
		runFinished:           make(chan struct{}),
		requestedResyncPeriod: opts.RequestedResyncPeriod,
		resyncPeriod:          opts.ResyncPeriod,
		backlog:               newBacklogWatch(th),
		slowThreshold:         max(opts.SlowHandlerThreshold, 0),
	}
	l.metrics = newMetrics(opts.Metrics, informermetrics.ListenerID{Informer: opts.MetricsInformer, Handler: name})
	l.engine = newEngine(l, p, size, opts)
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
func (l *Listener) ShutdownChan() <-chan struct{} { return l.runFinished }

// Add hands n to the listener. It blocks until the listener has taken n (the
// listener never waits for the handler to take it), or returns at once,
// dropping n, once the listener has been removed or its processor stopped. An
// initial-list Add is counted by HasSynced before it is handed over.
//
// The processor calls Add for every distributed notification. The informer
// calls it directly only to replay its store to a listener that joins a
// running processor (see the package documentation). On a listener whose
// goroutines have not been started Add blocks.
func (l *Listener) Add(n Notification) { l.engine.add(n, l.owner.now()) }

// Stats returns a snapshot of the listener's counters.
func (l *Listener) Stats() Stats {
	s := l.engine.stats()
	s.Delivered = l.delivered.Load()
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
// the handler will be called no more, so the metrics are released and
// ShutdownChan closes.
func (l *Listener) finished() {
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
		defer l.traceIfLong(time.Now(), pending)
	}
	l.delivered.Add(1)
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
		l.slowCall(n, d)
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

// traceIfLong logs a handler call that began at start, with pending
// notifications, if it took slowTraceThreshold or more.
func (l *Listener) traceIfLong(start time.Time, pending int64) {
	l.traceIfSlow(start, time.Since(start), pending)
}

// traceIfSlow logs a handler call that began at start and took took, with
// pending notifications, if took is slowTraceThreshold or more. It logs
// what client-go's trace does, but builds the trace only when it logs, so
// that fast calls allocate nothing for it.
func (l *Listener) traceIfSlow(start time.Time, took time.Duration, pending int64) {
	if took < slowTraceThreshold {
		return
	}
	fields := []utiltrace.Field{
		{Key: "handler", Value: l.name},
		{Key: "pendingNotifications", Value: pending},
		{Key: "started", Value: start},
	}
	trace := utiltrace.New("processorListener handler", fields...)
	trace.Step("handler returned", utiltrace.Field{Key: "took", Value: took})
	trace.Log()
}
