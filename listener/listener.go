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

	"github.com/kfanout/fanout/internal/synctrack"
)

// initialBufferSize is client-go's initial listener buffer size, and the
// number of pending notifications above which each handler call is traced.
const initialBufferSize = 1024

// crashWait is how long a listener waits after a handler panic (with
// utilruntime.ReallyCrash false) before it delivers the next notification.
const crashWait = time.Second

// Options configures a Listener; see Processor.NewListener.
type Options struct {
	// Name names the handler in logs and in the sync tracker's name.
	// Empty means NameForHandler(handler).
	Name string
	// Logger receives the listener's log messages and panic reports. The
	// zero value means klog.Background().
	Logger klog.Logger
	// RequestedResyncPeriod is the resync period the handler asked for,
	// after the informer's minimum was applied. It is kept so that
	// Processor.ResyncCheckPeriodChanged can recompute ResyncPeriod.
	RequestedResyncPeriod time.Duration
	// ResyncPeriod is the period actually used, normally
	// DetermineResyncPeriod(RequestedResyncPeriod, the informer's check
	// period). Zero means never resync.
	ResyncPeriod time.Duration
	// UpstreamHasSynced is the informer's sync checker. Required.
	UpstreamHasSynced synctrack.DoneChecker
	// BufferSize is the initial capacity of the pending buffer; 0 means
	// client-go's 1024.
	BufferSize int
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

	syncTracker       *synctrack.SingleFileTracker
	upstreamHasSynced synctrack.DoneChecker

	added       atomic.Bool   // set by Processor.AddListener
	stopCh      chan struct{} // closed by the processor: take no more notifications, drop pending ones
	done        chan struct{} // closed when the engine's pop has returned; ends watchSynced
	runFinished chan struct{} // closed when the engine's run has returned (or on removal before start)

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
		stopCh:                make(chan struct{}),
		done:                  make(chan struct{}),
		runFinished:           make(chan struct{}),
		requestedResyncPeriod: opts.RequestedResyncPeriod,
		resyncPeriod:          opts.ResyncPeriod,
	}
	l.engine = newClassic(l, size)
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
func (l *Listener) Add(n Notification) { l.engine.add(n) }

// Stats returns a snapshot of the listener's counters.
func (l *Listener) Stats() Stats {
	s := l.engine.stats()
	s.Delivered = l.delivered.Load()
	s.Panics = l.panics.Load()
	return s
}

// popLoop is the body of the engine's pump goroutine.
func (l *Listener) popLoop() {
	defer close(l.done)
	l.engine.pop()
}

// runLoop is the body of the goroutine that calls the handler.
func (l *Listener) runLoop() {
	defer close(l.runFinished)
	l.engine.run()
}

// watchSynced waits for the informer to sync, then tells the sync tracker;
// it gives up when the listener stops pumping.
func (l *Listener) watchSynced() {
	select {
	case <-l.upstreamHasSynced.Done():
		l.syncTracker.UpstreamHasSynced()
	case <-l.done:
	}
}

// deliver calls the handler for n; pending is the engine's current backlog.
// A handler panic goes to utilruntime.HandleCrashWithLogger, which re-panics
// (crashing the process) unless utilruntime.ReallyCrash is false; in that
// case n is skipped and deliver reports crashed, and the engine waits
// waitAfterCrash before its next delivery.
func (l *Listener) deliver(n Notification, pending int64) (crashed bool) {
	crashed = true
	l.delivered.Add(1)
	defer func() {
		if crashed {
			l.panics.Add(1)
		}
	}()
	defer utilruntime.HandleCrashWithLogger(l.logger)
	if pending > initialBufferSize {
		trace := utiltrace.New("processorListener handler",
			utiltrace.Field{Key: "handler", Value: l.name},
			utiltrace.Field{Key: "pendingNotifications", Value: pending},
		)
		defer trace.LogIfLong(100 * time.Millisecond)
	}
	switch n.Kind {
	case Add:
		l.handler.OnAdd(n.Obj, n.IsInInitialList)
		if n.IsInInitialList {
			l.syncTracker.Finished()
		}
	case Update:
		l.handler.OnUpdate(n.OldObj, n.Obj)
	case Delete:
		l.handler.OnDelete(n.Obj)
	default:
		utilruntime.HandleErrorWithLogger(l.logger, nil, "unrecognized notification", "kind", n.Kind)
	}
	crashed = false
	return crashed
}

// waitAfterCrash pauses for crashWait on the listener's clock.
func (l *Listener) waitAfterCrash() {
	<-l.clock.After(crashWait)
}
