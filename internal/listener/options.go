package listener

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/internal/informermetrics"
	"github.com/kfanout/fanout/internal/synctrack"
)

// Options is what a handler's owner chooses for a Listener; see
// [Processor.NewListener]. For the informer these come from HandlerOptions
// and SharedIndexInformerOptions.ListenerEngine. [Options.Validate] checks
// them. What the informer computes for the registration is in [Binding].
type Options struct {
	// Name names the handler in logs, metrics and the sync tracker's name.
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
	// OverflowBlock (distribution waits for room; MaxPending must be > 0;
	// the replay of [Hub.Register] never waits, so a replay is not bounded).
	Overflow OverflowPolicy
	// MaxPending is the threshold for Overflow; 0 means none. Negative is
	// an error.
	MaxPending int
	// Workers, when more than 1, calls the handler on that many goroutines;
	// notifications with the same KeyFunc key go to the same worker, in
	// order. Negative, or more than MaxWorkers, is an error.
	Workers int
	// RecoverPanics recovers a handler panic: it is logged with the handler
	// name and object key and counted, an initial-list add still counts as
	// finished for HasSynced, and the next notification follows at once.
	// The log is rate-limited: a panic is logged with its stack, the ones
	// that follow within 10 s are counted in a summary logged at most once
	// per 10 s (and when the listener stops); Stats.Panics counts them all.
	RecoverPanics bool
	// KeyFunc returns an object's key (the informer sets
	// DeletionHandlingMetaNamespaceKeyFunc). Required by OverflowCoalesce
	// and by Workers > 1; used in panic logs when set. A notification
	// whose key fails is never merged and goes to the first worker.
	KeyFunc func(obj any) (string, error)
	// BacklogWarnThresholds are the pending counts at which the listener
	// logs that its handler is falling behind (once per crossing, and once
	// when the backlog drops below half the lowest again, which ends the
	// episode: a threshold is warned about again only after that; each at
	// most once per 10 s). Empty means DefaultBacklogWarnThresholds; a
	// negative value turns the messages off; 0 is an error.
	BacklogWarnThresholds []int
	// SlowHandlerThreshold, when positive, is how long one handler call
	// may take before the listener logs it with the object's key (at most
	// once per 10 s, counting the ones left out). 0 or negative means off,
	// the default: timing every call costs two clock reads per delivery
	// (free when Binding.Metrics is set, which times calls anyway).
	SlowHandlerThreshold time.Duration
	// BufferSize is the initial capacity of the pending buffer; 0 means
	// client-go's 1024.
	BufferSize int
}

// Binding is what the owner of a Processor (the informer) computes for one
// registration, as opposed to what the handler's owner chooses
// ([Options]). [Processor.NewListener] checks it.
type Binding struct {
	// UpstreamHasSynced is the informer's sync checker. Required.
	UpstreamHasSynced synctrack.DoneChecker
	// RequestedResyncPeriod is the resync period the handler asked for,
	// after the informer's minimum was applied. It is kept so that
	// [Processor.ResyncCheckPeriodChanged] can recompute ResyncPeriod.
	// Negative is accepted, as client-go accepts it: like any period
	// below the check period, it resyncs at the check period.
	RequestedResyncPeriod time.Duration
	// ResyncPeriod is the period actually used, normally
	// DetermineResyncPeriod(RequestedResyncPeriod, the informer's check
	// period). Zero means never resync; negative is an error.
	ResyncPeriod time.Duration
	// Metrics receives the listener's per-handler metrics, labelled with
	// MetricsInformer and the listener's name. Nil or the no-op provider
	// means none, at no cost on the delivery path.
	Metrics informermetrics.ListenerMetricsProvider
	// MetricsInformer is the informer name in the metrics' ListenerID.
	MetricsInformer string
	// WaitSeq, if not nil, waits until the informer's cache has applied a
	// resourceVersion and returns the Seq of the last change distributed
	// by then; it backs Listener.WaitForResourceVersion.
	WaitSeq func(ctx context.Context, resourceVersion string) (uint64, error)
}

// Validate checks the options: the engine, the overload options (with
// KeyFunc where they need one) and the backlog thresholds. The owner of
// the options calls it once, before it changes anything for the
// registration ([Processor.NewListener] relies on it). Its errors name the
// field, without a package prefix.
func (o *Options) Validate() error {
	switch {
	case o.MaxPending < 0:
		return fmt.Errorf("MaxPending must not be negative, got %d", o.MaxPending)
	case o.Workers < 0:
		return fmt.Errorf("Workers must not be negative, got %d", o.Workers)
	case o.Workers > MaxWorkers:
		return fmt.Errorf("Workers must be at most %d, got %d", MaxWorkers, o.Workers)
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

// validate checks b, in the style of [Options.Validate].
func (b *Binding) validate() error {
	switch {
	case b.UpstreamHasSynced == nil:
		return errors.New("Binding.UpstreamHasSynced is nil")
	case b.ResyncPeriod < 0:
		return fmt.Errorf("negative resync period (requested %v, effective %v)", b.RequestedResyncPeriod, b.ResyncPeriod)
	}
	return nil
}

// needsDirect reports whether an overload option requires EngineDirect.
func (o *Options) needsDirect() bool {
	return o.Overflow != OverflowGrow || o.Workers > 1 || o.RecoverPanics
}

// MaxWorkers is the largest Options.Workers. Each worker is a goroutine
// with its own queue, started with the handler and kept for its lifetime,
// and all of them are fed by the one goroutine of the informer's delivery
// stream: far below this bound that feed, not the number of workers, limits
// throughput. 1024 leaves room for handlers that wait on slow remote calls
// while refusing, at registration, a typo such as 100000 that would start a
// hundred thousand goroutines.
const MaxWorkers = 1024
