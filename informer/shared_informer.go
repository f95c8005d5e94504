package informer

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
)

// SharedInformer keeps a cache of one resource in sync with the API server
// and tells any number of event handlers about every change. Each handler
// gets its own listener: calls to one handler are sequential and in order,
// and a slow handler does not delay the others.
//
// The cache is filled before handlers are told, so a handler that looks an
// object up in GetStore() sees at least the state it is told about. Objects
// handed to handlers and returned by the store are shared: never modify
// them.
type SharedInformer interface {
	// AddEventHandler registers handler with the informer's default resync
	// period. A handler added after Run first receives the current content
	// of the cache as initial-list adds. It fails for a nil handler
	// (also a typed nil pointer, or a FilteringResourceEventHandler
	// around one, which would panic at delivery) and once the informer
	// has stopped.
	AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithResyncPeriod is AddEventHandler with the
	// handler's own resync period (at least one second; it cannot be
	// shorter than the informer's check period once the informer runs,
	// and there is no resync at all when the informer was created with
	// period 0). A negative period is accepted, as in client-go: it
	// resyncs at the informer's check period.
	AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithOptions is AddEventHandler with options.
	AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error)
	// RemoveEventHandler removes a registration; what it had pending is
	// dropped. It does not wait for a handler call in progress (see
	// ShutDownEventHandler).
	RemoveEventHandler(handle ResourceEventHandlerRegistration) error
	// GetStore returns the informer's cache.
	GetStore() Store
	// GetController returns a Controller view of the informer; its Run
	// does nothing.
	GetController() Controller
	// Run runs the informer until stopCh is closed. Only the first call
	// runs; later calls log and return.
	Run(stopCh <-chan struct{})
	// RunWithContext is Run until ctx is done.
	RunWithContext(ctx context.Context)
	// HasSynced reports whether the cache holds the initial list. It says
	// nothing about handlers: use the registration's HasSynced for that.
	HasSynced() bool
	// HasSyncedChecker is HasSynced as a DoneChecker.
	HasSyncedChecker() DoneChecker
	// LastSyncResourceVersion is the resource version last seen by the
	// reflector, or "" before Run.
	LastSyncResourceVersion() string
	// SetWatchErrorHandler sets the handler for list and watch errors. It
	// fails once the informer has started.
	SetWatchErrorHandler(handler WatchErrorHandler) error
	// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with a
	// context.
	SetWatchErrorHandlerWithContext(handler WatchErrorHandlerWithContext) error
	// SetTransform sets a transform applied to every object before it is
	// cached. It fails once the informer has started.
	SetTransform(handler TransformFunc) error
	// IsStopped reports whether the informer has stopped.
	IsStopped() bool
}

// SharedIndexInformer is a SharedInformer whose cache is an Indexer.
type SharedIndexInformer interface {
	SharedInformer
	// AddIndexers adds indexers, also while running (existing objects are
	// indexed). It fails once the informer has stopped.
	AddIndexers(indexers Indexers) error
	// GetIndexer returns the cache.
	GetIndexer() Indexer
}

// ResourceEventHandlerRegistration is the handle AddEventHandler returns.
type ResourceEventHandlerRegistration interface {
	// HasSynced reports whether the informer has synced and this handler
	// has returned from every initial-list OnAdd.
	HasSynced() bool
	// HasSyncedChecker is HasSynced as a DoneChecker.
	HasSyncedChecker() DoneChecker
}

// HandlerOptions configures one event handler registration.
type HandlerOptions struct {
	// Logger receives the registration's log messages; the informer's
	// default logger if nil.
	Logger *klog.Logger
	// ResyncPeriod overrides the informer's default resync period for this
	// handler.
	ResyncPeriod *time.Duration
	// Name names the handler in logs and metrics; by default it is derived
	// from the handler as client-go does.
	Name string

	// The fields below are fanout's overload control; their zero values
	// keep client-go's behaviour.

	// Any non-default value selects the direct listener engine for this
	// handler. Object keys are DeletionHandlingMetaNamespaceKeyFunc's.

	// Overflow says what happens once more than MaxPending notifications
	// wait for this handler: OverflowGrow (the default, client-go's
	// unbounded buffer), OverflowCoalesce (at most one pending
	// notification per object key past the threshold, merged by the rules
	// of listener/merge.go, placed on the delivery path in
	// docs/architecture.md; MaxPending 0 coalesces from the first pending
	// notification) or OverflowBlock (distribution, and so the informer's
	// queue and watch, waits for room; MaxPending must be > 0; the wait is
	// logged and ends when the handler is removed or the informer stops;
	// the store replayed to a handler added to a running informer is not
	// bounded by MaxPending and never waits, so Pending may exceed
	// MaxPending by up to the store's size until the replay is handled).
	Overflow OverflowPolicy
	// MaxPending is the threshold for Overflow; 0 means none. Negative is
	// an error.
	MaxPending int
	// Workers, when more than 1, calls the handler on that many goroutines:
	// notifications for one object key stay in order on one worker,
	// different keys run concurrently. The registration is synced once
	// every initial-list OnAdd has returned, on whichever worker. Negative,
	// or more than listener.MaxWorkers (1024), is an error.
	Workers int
	// RecoverPanics recovers a handler panic instead of crashing the
	// process: it is logged with the handler name and object key and
	// counted, an initial-list add still counts as handled (so HasSynced
	// cannot wedge), and the next notification follows at once. A panic
	// is logged with its stack; the ones that follow within 10 s are
	// counted in a summary logged at most once per 10 s.
	RecoverPanics bool

	// The fields below tune the registration's log messages; their zero
	// values are the defaults. Messages go to Logger.

	// BacklogWarnThresholds are the pending counts (see ListenerStats) at
	// which a warning says the handler is falling behind: one message per
	// crossing, and an info message once the backlog drops below half the
	// lowest (a threshold warns again only after that); each kind at most once per 10 s (per threshold), the others
	// counted as "suppressed" in the next message. Empty means
	// listener.DefaultBacklogWarnThresholds (1000, 10000, 100000); a
	// negative value turns the messages off; 0 is an error.
	BacklogWarnThresholds []int
	// SlowHandlerThreshold, when positive, is how long one handler call
	// may take before a warning names the handler and the object's key (at
	// most one message per 10 s, counting the rest as "suppressed"). 0 (the
	// default) or negative means off: timing every call costs two clock
	// reads per delivery, unless a ListenerMetricsProvider times them
	// anyway.
	SlowHandlerThreshold time.Duration
}

// SharedIndexInformerOptions configures NewSharedIndexInformerWithOptions.
type SharedIndexInformerOptions struct {
	// ResyncPeriod is the default resync period of handlers, and the
	// informer's resync check period; 0 disables resyncs entirely.
	ResyncPeriod time.Duration
	// Indexers are the cache's initial indexers.
	Indexers Indexers
	// ObjectDescription names the objects in logs; the type by default.
	ObjectDescription string
	// Identifier names the informer in metrics.
	Identifier InformerNameAndResource
	// InformerMetricsProvider overrides the global informer metrics
	// provider.
	InformerMetricsProvider InformerMetricsProvider
	// InOrder selects the queue that feeds the informer. Nil (the default)
	// follows the InOrderInformers feature gate, which is on as in
	// client-go v0.35+: RealFIFO, every delta in order, atomic relists and
	// resyncs, batch processing. A pointer to false gives the DeltaFIFO
	// (Pop processes under the queue lock, adjacent deletions merge), as
	// does KUBE_FEATURE_InOrderInformers=false for every informer left at
	// nil; a pointer to true gives RealFIFO whatever the gate says.
	// [SeedPreset] sets it to false.
	InOrder *bool
	// ListenerEngine selects the engine of the handlers' listeners:
	// EngineDirect (the zero value, fanout's) or EngineClassic (client-go's
	// shape). A handler registered with a non-default overload option (Overflow
	// other than OverflowGrow, Workers > 1, RecoverPanics) always gets
	// EngineDirect.
	ListenerEngine ListenerEngine
	// ListenerMetricsProvider receives the handlers' per-registration
	// metrics (pending, high water, delivered, coalesced, panics, handler
	// duration, oldest pending age), labelled with the informer's name (the
	// Identifier's name when it is reserved, else ObjectDescription, else
	// the example object's type) and the handler's name. Nil means the
	// provider set with SetListenerMetricsProvider, by default a no-op
	// that costs nothing.
	ListenerMetricsProvider ListenerMetricsProvider
	// ListScope is what the informer lists and watches on top of what the
	// ListerWatcher selects (namespaces, a tweak of every request's
	// options); SetListOptions replaces it while the informer runs.
	ListScope ListScope
}

// NewSharedInformer returns a SharedInformer for lw's objects, which look
// like exampleObject, with handlers resyncing every
// defaultEventHandlerResyncPeriod (0 for never).
func NewSharedInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration) SharedInformer {
	return NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, Indexers{})
}

// NewSharedIndexInformer is NewSharedInformer with indexers.
func NewSharedIndexInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers Indexers) SharedIndexInformer {
	return NewSharedIndexInformerWithOptions(lw, exampleObject, SharedIndexInformerOptions{
		ResyncPeriod: defaultEventHandlerResyncPeriod,
		Indexers:     indexers,
	})
}

// NewSharedIndexInformerWithOptions returns a SharedIndexInformer for lw.
// A nil lw is reported by Run, which then returns at once, and by
// AddEventHandler, which fails.
func NewSharedIndexInformerWithOptions(lw ListerWatcher, exampleObject runtime.Object, options SharedIndexInformerOptions) SharedIndexInformer {
	return newSharedIndexInformer(lw, exampleObject, options, nil)
}
