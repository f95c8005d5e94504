package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kfanout/fanout/internal/features"
	"github.com/kfanout/fanout/internal/queueaccess"
)

// Config configures the low-level Controller: a reflector that fills
// Queue from ListerWatcher, and a loop that pops Queue into Process.
type Config struct {
	// Queue receives what the reflector lists and watches. It is closed
	// when the controller stops.
	Queue
	// ListerWatcher is the source of objects.
	ListerWatcher
	// Process handles one popped item (a Deltas for the queues of this
	// module). An error drops the item.
	Process ProcessFunc
	// ProcessBatch, when set and Queue supports batches, handles several
	// deltas at once.
	ProcessBatch ProcessBatchFunc
	// ObjectType is an example of the objects the source returns.
	ObjectType runtime.Object
	// ObjectDescription names the objects in logs; the type by default.
	ObjectDescription string
	// FullResyncPeriod is how often the reflector asks for a resync; 0
	// never.
	FullResyncPeriod time.Duration
	// MinWatchTimeout is the lower bound of the watch timeout (at least 5
	// minutes).
	MinWatchTimeout time.Duration
	// ShouldResync is asked before each periodic resync; nil means yes.
	ShouldResync ShouldResyncFunc
	// WatchErrorHandler is called when a list or watch fails. It wins over
	// WatchErrorHandlerWithContext.
	WatchErrorHandler WatchErrorHandler
	// WatchErrorHandlerWithContext is WatchErrorHandler with a context.
	WatchErrorHandlerWithContext WatchErrorHandlerWithContext
	// WatchListPageSize is the reflector's list page size; 0 for the
	// default.
	WatchListPageSize int64
	// RetryOnError puts an item whose Process failed back in the queue,
	// unless the queue holds its key again, when the queue has
	// AddIfNotPresent (DeltaFIFO and FIFO do). It is client-go's field up
	// to v0.32; it does not apply to batch pops.
	RetryOnError bool
}

// popped is what the keyed pop of the shared informer's queue
// (DeltaFIFO or RealFIFO) hands its consumer: the deltas with the keys the
// queue computed for them.
type popped = queueaccess.Popped[Delta]

// queueAccess returns what the informer reaches of q beyond Queue, and
// false unless q is a DeltaFIFO (possibly presized) or RealFIFO.
func queueAccess(q Queue) (queueaccess.Access[Delta], bool) {
	if p, ok := q.(presizedDeltaFIFO); ok {
		q = p.DeltaFIFO
	}
	return queueaccess.For[Delta](q)
}

// keyedPop returns the keyed pop of q, a DeltaFIFO (possibly presized) or
// RealFIFO, or nil for any other queue.
func keyedPop(q Queue) queueaccess.Pop[Delta] {
	a, _ := queueAccess(q)
	return a.Pop
}

// ShouldResyncFunc reports whether a periodic resync is due.
type ShouldResyncFunc func() bool

// ProcessFunc handles one popped item.
type ProcessFunc func(obj any, isInInitialList bool) error

// Controller runs a reflector and a processing loop.
type Controller interface {
	// RunWithContext runs until ctx is done. It may be called once.
	RunWithContext(ctx context.Context)
	// Run is RunWithContext until stopCh is closed.
	Run(stopCh <-chan struct{})
	// HasSynced reports whether the initial list has been processed.
	HasSynced() bool
	// HasSyncedChecker is HasSynced as a DoneChecker.
	HasSyncedChecker() DoneChecker
	// LastSyncResourceVersion is the resource version last seen.
	LastSyncResourceVersion() string
}

type controller struct {
	config Config
	clock  clock.Clock
	// keyed and processKeyed, set by the shared informer for the queue it
	// builds, replace Queue's Pop and Process: every item is popped with
	// its keys (see newKeyedController).
	keyed        queueaccess.Pop[Delta]
	processKeyed queueaccess.Func[Delta]

	mu        sync.RWMutex // guards reflector
	reflector *Reflector
}

// New returns a Controller for c. It copies c.
func New(c *Config) Controller {
	return &controller{config: *c, clock: clock.RealClock{}}
}

// newKeyedController returns the shared informer's controller: c, whose
// Queue is q, popped with its keyed pop into process, on clk. q must be a
// DeltaFIFO or RealFIFO, which have one.
func newKeyedController(c Config, q Queue, process queueaccess.Func[Delta], clk clock.Clock) *controller {
	c.Queue = q
	pop := keyedPop(q)
	if pop == nil {
		panic(fmt.Sprintf("informer: queue %T has no keyed pop", q))
	}
	return &controller{config: c, clock: clk, keyed: pop, processKeyed: process}
}

// Run runs the controller until stopCh is closed.
func (c *controller) Run(stopCh <-chan struct{}) {
	c.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext runs the reflector on its own goroutine and the processing
// loop on this one until ctx is done; it returns after both have stopped.
// The queue is closed when ctx is done, which ends the processing loop.
func (c *controller) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)
	r := NewReflectorWithOptions(c.config.ListerWatcher, c.config.ObjectType, c.config.Queue, ReflectorOptions{
		Logger:          &logger,
		ResyncPeriod:    c.config.FullResyncPeriod,
		MinWatchTimeout: c.config.MinWatchTimeout,
		TypeDescription: c.config.ObjectDescription,
		Clock:           c.clock,
	})
	r.ShouldResync = c.config.ShouldResync
	r.WatchListPageSize = c.config.WatchListPageSize
	if h := c.config.WatchErrorHandler; h != nil {
		r.setWatchErrorHandler(func(_ context.Context, r *Reflector, err error) { h(r, err) })
	} else if c.config.WatchErrorHandlerWithContext != nil {
		r.setWatchErrorHandler(c.config.WatchErrorHandlerWithContext)
	}
	c.mu.Lock()
	c.reflector = r
	c.mu.Unlock()

	var wg sync.WaitGroup
	// Closes the queue on stop; exits then.
	wg.Go(func() {
		<-ctx.Done()
		c.config.Queue.Close()
	})
	// The reflector; exits when ctx is done.
	wg.Go(func() { r.RunWithContext(ctx) })
	wait.UntilWithContext(ctx, c.processLoop, time.Second)
	wg.Wait()
}

// HasSynced reports whether the queue has delivered its initial list.
func (c *controller) HasSynced() bool { return c.config.Queue.HasSynced() }

// HasSyncedChecker is the queue's sync checker.
func (c *controller) HasSyncedChecker() DoneChecker { return c.config.Queue.HasSyncedChecker() }

// LastSyncResourceVersion is the reflector's, or "" before Run.
func (c *controller) LastSyncResourceVersion() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.reflector == nil {
		return ""
	}
	return c.reflector.LastSyncResourceVersion()
}

// processLoop pops until the queue is closed. Processing errors drop the
// item, as in client-go.
func (c *controller) processLoop(ctx context.Context) {
	pop := c.popFunc()
	for ctx.Err() == nil {
		if err := pop(); errors.Is(err, ErrFIFOClosed) {
			return
		}
	}
}

// popFunc returns the call that pops and processes one item or batch. A
// batch is popped when the queue supports batches and the
// InOrderInformersBatchProcess gate is on (and, for a user's config,
// ProcessBatch is set), as in client-go; otherwise one item is. The shared
// informer's queue is popped with its keys; a user's config pops with
// Process and ProcessBatch.
func (c *controller) popFunc() func() error {
	cfg := &c.config
	batchGate := features.Enabled(features.InOrderInformersBatchProcess)
	if c.keyed != nil {
		return func() error { return c.keyed(batchGate, c.processKeyed) }
	}
	if q, ok := cfg.Queue.(QueueWithBatch); ok && cfg.ProcessBatch != nil && batchGate {
		return func() error { return q.PopBatch(cfg.ProcessBatch, PopProcessFunc(cfg.Process)) }
	}
	return func() error {
		obj, err := cfg.Queue.Pop(PopProcessFunc(cfg.Process))
		if err != nil && cfg.RetryOnError && !errors.Is(err, ErrFIFOClosed) {
			if q, ok := cfg.Queue.(interface{ AddIfNotPresent(any) error }); ok {
				_ = q.AddIfNotPresent(obj)
			}
		}
		return err
	}
}

// errNotDeltas is returned when a process function receives something else.
var errNotDeltas = errors.New("object given as Process argument is not Deltas")

// processDeltasFunc returns a ProcessFunc that applies Deltas to store and
// notifies handler.
func processDeltasFunc(logger klog.Logger, handler ResourceEventHandler, store Store) ProcessFunc {
	return func(obj any, isInInitialList bool) error {
		deltas, ok := obj.(Deltas)
		if !ok {
			return errNotDeltas
		}
		return process(logger, handler, store, popped{Deltas: deltas, IsInInitialList: isInInitialList}, nil)
	}
}

// queueName is the queue's name in logs, as client-go spells it.
func queueName(kind string, objectType any) string { return fmt.Sprintf("%s %T", kind, objectType) }
