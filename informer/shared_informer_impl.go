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
	"github.com/kfanout/fanout/internal/listener"
)

// errNilListerWatcher is reported for an informer built without a source.
var errNilListerWatcher = errors.New("shared informer has no ListerWatcher")

// sharedIndexInformer is the SharedIndexInformer. It owns three goroutines
// while running, all started by RunWithContext and all ended before it
// returns: the processor (stopped strictly after the controller), the
// mutation detector, and a watcher that closes synced.
type sharedIndexInformer struct {
	indexer           Indexer
	processor         *listener.Processor
	mutationDetector  MutationDetector
	listerWatcher     ListerWatcher
	objectType        runtime.Object
	objectDescription string
	identifier        InformerNameAndResource
	metricsProvider   InformerMetricsProvider
	inOrder           bool
	listenerEngine    ListenerEngine
	listenerMetrics   ListenerMetricsProvider // nil: the global one, resolved per handler
	metricsName       string                  // the informer in ListenerID
	clock             clock.Clock
	// switcher holds the ListScope (see SetListOptions).
	switcher *listSwitch

	// synced is closed once the queue has delivered the initial list.
	synced chan struct{}

	// startedLock guards the fields below it and serialises handler
	// registration with Run and stop.
	startedLock                     sync.Mutex
	started, stopped                bool
	controller                      Controller
	resyncCheckPeriod               time.Duration
	defaultEventHandlerResyncPeriod time.Duration
	watchErrorHandler               WatchErrorHandlerWithContext
	transform                       TransformFunc
	life                            runLife // Shutdown's view of Run

	// hub owns the critical section of every change: the delta lock, the
	// store write, the listeners that receive it, then the handoffs that
	// may wait; and a late handler's registration and replay.
	hub *listener.Hub
	// batchResults is the scratch space of keyed batches; only the
	// controller's goroutine, inside hub.Apply, uses it.
	batchResults []batchResult
}

func newSharedIndexInformer(lw ListerWatcher, exampleObject runtime.Object, options SharedIndexInformerOptions, clk clock.Clock) *sharedIndexInformer {
	if clk == nil {
		clk = clock.RealClock{}
	}
	processor := listener.NewProcessor(listener.ProcessorOptions{Clock: clk})
	mutationDetector := NewCacheMutationDetector(fmt.Sprintf("%T", exampleObject))
	return &sharedIndexInformer{
		indexer:                         newInformerIndexer(options),
		processor:                       processor,
		hub:                             listener.NewHub(processor, mutationDetector.AddObject),
		mutationDetector:                mutationDetector,
		listerWatcher:                   lw,
		objectType:                      exampleObject,
		objectDescription:               options.ObjectDescription,
		identifier:                      options.Identifier,
		metricsProvider:                 options.InformerMetricsProvider,
		inOrder:                         resolveInOrder(options.InOrder),
		listenerEngine:                  options.ListenerEngine,
		listenerMetrics:                 options.ListenerMetricsProvider,
		metricsName:                     listenerMetricsName(options, exampleObject),
		clock:                           clk,
		switcher:                        newListSwitch(options.ListScope),
		synced:                          make(chan struct{}),
		resyncCheckPeriod:               options.ResyncPeriod,
		defaultEventHandlerResyncPeriod: options.ResyncPeriod,
	}
}

// newInformerIndexer returns the shared informer's store, keyed by
// DeletionHandlingMetaNamespaceKeyFunc.
func newInformerIndexer(options SharedIndexInformerOptions) Indexer {
	c := newCache(DeletionHandlingMetaNamespaceKeyFunc, options.Indexers, []StoreOption{WithStoreMetrics(options.Identifier, options.InformerMetricsProvider)})
	c.standardKeys = true
	return c
}

// Run runs the informer until stopCh is closed.
func (s *sharedIndexInformer) Run(stopCh <-chan struct{}) {
	s.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext runs the informer until ctx is done and returns once the
// controller and then the processor have stopped.
func (s *sharedIndexInformer) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)
	if s.listerWatcher == nil {
		utilruntime.HandleErrorWithContext(ctx, errNilListerWatcher, "Shared informer cannot run", "type", fmt.Sprintf("%T", s.objectType))
		return
	}
	if !s.start(logger) {
		logger.Info("Warning: the sharedIndexInformer has started, run more than once is not allowed")
		return
	}
	ctx, ran := s.runContext(ctx)
	defer ran()
	defer trackRunning(s)()

	// The processor and its helpers run on a context that is cancelled
	// only after the controller has returned, so no delta is distributed
	// to a stopped processor.
	procCtx, stopProcessor := context.WithCancelCause(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopProcessor(errors.New("informer is stopping"))
	wg.Go(func() { s.mutationDetector.Run(procCtx.Done()) })
	wg.Go(func() { s.processor.Run(procCtx) })
	// A handler with OverflowBlock must not keep the controller from
	// stopping: once ctx is done, distribution stops waiting for room.
	defer context.AfterFunc(ctx, s.processor.Unblock)()
	wg.Go(func() {
		select {
		case <-s.controller.HasSyncedChecker().Done():
			close(s.synced)
		case <-ctx.Done():
		}
	})
	defer func() {
		s.startedLock.Lock()
		s.stopped = true
		s.startedLock.Unlock()
	}()
	s.controller.RunWithContext(ctx)
}

// start builds the queue and the controller; it reports false if the
// informer had already started.
func (s *sharedIndexInformer) start(logger klog.Logger) bool {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.started || s.life.shutDown {
		return false
	}
	queue := newQueue(logger, s.objectType, s.indexer, s.transform, s.identifier, s.metricsProvider, &s.inOrder)
	// The queue keys objects as the indexer does (MetaNamespaceKeyFunc,
	// tombstones by their Key), so its keys can be used for the store;
	// but DeltaFIFO keys an object before transforming it and the store
	// after, and they differ if the transform changes the key.
	_, realFIFO := queue.(*RealFIFO)
	storeKeys := realFIFO || s.transform == nil
	if q, ok := queue.(*DeltaFIFO); ok {
		if c, ok := s.indexer.(*cache); ok {
			queue = presizedDeltaFIFO{DeltaFIFO: q, store: c}
		}
	}
	// Every popped item is written to the store, and its listeners fixed,
	// under the hub's delta lock; the handoffs that may wait are finished
	// after it is released.
	processItem := func(p popped) error {
		if !storeKeys {
			p.Keys = nil
		}
		return s.hub.Apply(func(h listener.Handler) error {
			return process(logger, s.switcher.deliveryHandler(h, p), s.indexer, p, &s.batchResults)
		})
	}
	s.switcher.bindQueue(queue)
	s.controller = newKeyedController(Config{
		ListerWatcher:                s.switcher.source(s.listerWatcher),
		ObjectType:                   s.objectType,
		ObjectDescription:            s.objectDescription,
		FullResyncPeriod:             s.resyncCheckPeriod,
		ShouldResync:                 s.processor.ShouldResync,
		WatchErrorHandlerWithContext: s.watchErrorHandler,
	}, queue, processItem, s.clock)
	s.bindIndexRefusals()
	s.started = true
	return true
}

// HasSynced reports whether the initial list is in the cache.
func (s *sharedIndexInformer) HasSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker returns a checker done when HasSynced becomes true.
func (s *sharedIndexInformer) HasSyncedChecker() DoneChecker { return informerSynced{s} }

// informerSynced is the informer's DoneChecker.
type informerSynced struct{ s *sharedIndexInformer }

func (c informerSynced) Name() string          { return fmt.Sprintf("SharedIndexInformer %T", c.s.objectType) }
func (c informerSynced) Done() <-chan struct{} { return c.s.synced }

// LastSyncResourceVersion is the reflector's last resource version.
func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.controller == nil {
		return ""
	}
	return s.controller.LastSyncResourceVersion()
}

// GetStore returns the cache.
func (s *sharedIndexInformer) GetStore() Store { return s.indexer }

// GetIndexer returns the cache.
func (s *sharedIndexInformer) GetIndexer() Indexer { return s.indexer }

// AddIndexers adds indexers to the cache unless the informer has stopped.
func (s *sharedIndexInformer) AddIndexers(indexers Indexers) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.stopped {
		return fmt.Errorf("indexer was not added because it has stopped already")
	}
	return s.indexer.AddIndexers(indexers)
}

// GetController returns a Controller view whose Run does nothing.
func (s *sharedIndexInformer) GetController() Controller { return informerController{s} }

// IsStopped reports whether Run has returned.
func (s *sharedIndexInformer) IsStopped() bool {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	return s.stopped
}

// SetWatchErrorHandler sets the watch error handler before Run.
func (s *sharedIndexInformer) SetWatchErrorHandler(handler WatchErrorHandler) error {
	if handler == nil {
		return s.SetWatchErrorHandlerWithContext(nil)
	}
	return s.SetWatchErrorHandlerWithContext(func(_ context.Context, r *Reflector, err error) { handler(r, err) })
}

// SetWatchErrorHandlerWithContext sets the watch error handler before Run.
func (s *sharedIndexInformer) SetWatchErrorHandlerWithContext(handler WatchErrorHandlerWithContext) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.started {
		return fmt.Errorf("informer has already started")
	}
	s.watchErrorHandler = handler
	return nil
}

// SetTransform sets the transform before Run.
func (s *sharedIndexInformer) SetTransform(handler TransformFunc) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.started {
		return fmt.Errorf("informer has already started")
	}
	s.transform = handler
	return nil
}

// informerController is what GetController returns: the informer seen as a
// Controller. Its Run methods do nothing, since the informer's own Run
// runs the controller; the other methods report the informer's state.
type informerController struct{ s *sharedIndexInformer }

func (informerController) RunWithContext(context.Context)  {}
func (informerController) Run(<-chan struct{})             {}
func (c informerController) HasSynced() bool               { return c.s.HasSynced() }
func (c informerController) HasSyncedChecker() DoneChecker { return c.s.HasSyncedChecker() }
func (c informerController) LastSyncResourceVersion() string {
	if !features.Enabled(features.InformerResourceVersion) {
		return ""
	}
	return c.s.LastSyncResourceVersion()
}

// listenerMetricsName is the informer's name in its handlers' ListenerIDs:
// the Identifier's name when it is reserved, else the object description,
// else the example object's type.
func listenerMetricsName(options SharedIndexInformerOptions, exampleObject runtime.Object) string {
	switch {
	case options.Identifier.Reserved():
		return options.Identifier.Name()
	case options.ObjectDescription != "":
		return options.ObjectDescription
	}
	return fmt.Sprintf("%T", exampleObject)
}
