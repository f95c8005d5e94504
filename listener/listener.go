package listener

import (
	engine "github.com/kfanout/fanout/internal/listener"
	"github.com/kfanout/fanout/internal/synctrack"
)

// Handler receives notifications. Its method set is that of client-go's
// cache.ResourceEventHandler (and informer.ResourceEventHandler), so a
// value of either satisfies it.
type Handler = engine.Handler

// Notification is one change to hand to a handler; build it with NewAdd,
// NewUpdate or NewDelete.
type Notification = engine.Notification

// Kind says which handler method a Notification is for.
type Kind = engine.Kind

// The kinds of notification.
const (
	Add    = engine.Add
	Update = engine.Update
	Delete = engine.Delete
)

// NewAdd returns an Add notification for obj. An add in the initial list
// counts towards the listener's HasSynced.
func NewAdd(obj any, isInInitialList bool) Notification { return engine.NewAdd(obj, isInInitialList) }

// NewUpdate returns an Update notification from oldObj to newObj.
func NewUpdate(oldObj, newObj any) Notification { return engine.NewUpdate(oldObj, newObj) }

// NewDelete returns a Delete notification for obj.
func NewDelete(obj any) Notification { return engine.NewDelete(obj) }

// Listener delivers notifications to one handler. It is also the
// registration the informer hands out: Stats, HasSynced and ShutdownChan
// are its users' view of a handler.
type Listener = engine.Listener

// Options is what a handler's owner chooses for its listener: the name,
// the logger, the engine and the overload options. For the informer they
// come from HandlerOptions.
type Options = engine.Options

// OverflowPolicy says what a listener does once more than
// Options.MaxPending notifications wait.
type OverflowPolicy = engine.OverflowPolicy

// The overflow policies.
const (
	// OverflowGrow buffers without bound, as client-go does (the default).
	OverflowGrow = engine.OverflowGrow
	// OverflowCoalesce keeps at most one pending notification per object
	// key past the threshold.
	OverflowCoalesce = engine.OverflowCoalesce
	// OverflowBlock makes distribution wait for room (backpressure).
	OverflowBlock = engine.OverflowBlock
)

// Engine selects how a listener delivers notifications.
type Engine = engine.Engine

// The engines.
const (
	// EngineDirect is fanout's engine and the default: one goroutine per
	// handler reading a log shared by all handlers. It implements the
	// overload options.
	EngineDirect = engine.EngineDirect
	// EngineClassic is client-go's processorListener shape (two goroutines
	// and two channel handoffs per handler), kept as the fidelity
	// reference.
	EngineClassic = engine.EngineClassic
)

// Stats is a snapshot of one listener's counters.
type Stats = engine.Stats

// Config is the configuration a listener runs with, after defaults and
// the engine choice were applied.
type Config = engine.Config

// DoneChecker is a sync signal: a name and a channel closed once synced.
type DoneChecker = synctrack.DoneChecker

// MaxWorkers is the largest Options.Workers.
const MaxWorkers = engine.MaxWorkers

// DefaultBacklogWarnThresholds are the pending counts at which a listener
// warns that its handler is falling behind when
// Options.BacklogWarnThresholds is empty.
var DefaultBacklogWarnThresholds = engine.DefaultBacklogWarnThresholds

// NameForHandler returns the name a handler gets when Options.Name is
// empty, the one client-go gives it in logs and sync tracker names: for a
// ResourceEventHandlerFuncs value, the package of its functions; otherwise
// the package path and name of the handler's type.
func NameForHandler(handler Handler) string { return engine.NameForHandler(handler) }
