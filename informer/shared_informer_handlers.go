package informer

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/internal/informermetrics"
	"github.com/kfanout/fanout/internal/listener"
)

// minimumResyncPeriod is the shortest resync period a handler can get.
const minimumResyncPeriod = time.Second

// errNilHandler is returned for a nil event handler.
var errNilHandler = errors.New("event handler is nil")

// AddEventHandler registers handler with the default resync period.
func (s *sharedIndexInformer) AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod registers handler with its own period.
func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions registers handler. When the informer is
// already running, the new listener gets the cache replayed as initial-list
// adds while deltas are held back, and only then starts watching for sync.
func (s *sharedIndexInformer) AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error) {
	if isNilHandler(handler) {
		return nil, errNilHandler
	}
	if s.listerWatcher == nil {
		return nil, errNilListerWatcher
	}
	// What the user chose is translated once and validated once, before
	// anything changes for the registration; the listener.Binding is
	// computed below.
	logger := handlerLogger(options)
	opts := options.listenerOptions(s.listenerEngine, logger)
	if err := validate(&opts); err != nil {
		return nil, err
	}
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.stopped {
		return nil, fmt.Errorf("handler %v was not added to shared informer because it has stopped already", handler)
	}

	resync := s.defaultEventHandlerResyncPeriod
	if options.ResyncPeriod != nil {
		resync = *options.ResyncPeriod
	}
	if resync > 0 {
		if resync < minimumResyncPeriod {
			logger.Info("Warning: resync period is too small. Changing it to the minimum allowed value", "resyncPeriod", resync, "minimumResyncPeriod", minimumResyncPeriod)
			resync = minimumResyncPeriod
		}
		if resync < s.resyncCheckPeriod {
			if s.started {
				logger.Info("Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period", "resyncPeriod", resync, "resyncCheckPeriod", s.resyncCheckPeriod)
				resync = s.resyncCheckPeriod
			} else {
				s.resyncCheckPeriod = resync
				s.processor.ResyncCheckPeriodChanged(logger, resync)
			}
		}
	}

	l, err := s.processor.NewListener(handler, listener.Binding{
		UpstreamHasSynced:     s.HasSyncedChecker(),
		RequestedResyncPeriod: resync,
		ResyncPeriod:          listener.DetermineResyncPeriod(logger, resync, s.resyncCheckPeriod),
		Metrics:               informermetrics.ListenerProvider(s.listenerMetrics),
		MetricsInformer:       s.metricsName,
		WaitSeq:               s.waitSeq,
	}, opts)
	if err != nil {
		return nil, err
	}
	var replay func() []any // before start, Run replays nothing: the initial list reaches every handler
	if s.started {
		replay = s.indexer.List
	}
	if err := s.hub.Register(l, replay); err != nil {
		return nil, err
	}
	return l, nil
}

// Validate reports whether AddEventHandlerWithOptions would accept o, with
// the error it would return: the overload options (MaxPending, Workers,
// Overflow) and the log thresholds. It is checked before anything changes
// for a registration; a wrapper that registers the handler later (on
// several informers, say) can call it first.
func (o *HandlerOptions) Validate() error {
	opts := o.listenerOptions(listener.EngineDirect, klog.Logger{})
	return validate(&opts)
}

// validate checks the listener options of a registration, with the error
// AddEventHandlerWithOptions returns.
func validate(opts *listener.Options) error {
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("invalid handler options: %w", err)
	}
	return nil
}

// listenerOptions is o as a listener on engine takes it, logging to logger.
func (o *HandlerOptions) listenerOptions(engine ListenerEngine, logger klog.Logger) listener.Options {
	return listener.Options{
		Name:                  o.Name,
		Logger:                logger,
		Engine:                engine,
		Overflow:              o.Overflow,
		MaxPending:            o.MaxPending,
		Workers:               o.Workers,
		RecoverPanics:         o.RecoverPanics,
		BacklogWarnThresholds: o.BacklogWarnThresholds,
		SlowHandlerThreshold:  o.SlowHandlerThreshold,
		KeyFunc:               DeletionHandlingMetaNamespaceKeyFunc,
	}
}

// isNilHandler reports a handler that would panic at its first delivery:
// a nil interface, a nil pointer of any type (its methods may have value
// receivers, which dereference it), and a FilteringResourceEventHandler
// whose Handler is such a handler. A nil func handler type is reported too.
// A nil pointer whose methods all accept a nil receiver is rejected as
// well: the informer cannot tell it from one that panics.
func isNilHandler(h ResourceEventHandler) bool {
	switch v := h.(type) {
	case nil:
		return true
	case *FilteringResourceEventHandler:
		return v == nil || isNilHandler(v.Handler)
	case FilteringResourceEventHandler:
		return isNilHandler(v.Handler)
	}
	switch rv := reflect.ValueOf(h); rv.Kind() {
	case reflect.Pointer, reflect.Func:
		return rv.IsNil()
	}
	return false
}

// RemoveEventHandler removes a registration; unknown ones are ignored.
func (s *sharedIndexInformer) RemoveEventHandler(handle ResourceEventHandlerRegistration) error {
	// A handoff waiting for room on this handler (OverflowBlock) holds no
	// lock of ours; RemoveListener makes it drop its notification.
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	return s.hub.Remove(handle)
}

// ShutDownEventHandler removes handle from informer and waits until its
// handler will be called no more. Called from inside one of that handler's
// own calls, it does not wait for that call (client-go's deadlocks there):
// it waits for the handler's calls on other workers, and the handler is
// called no more once the calling one returns, as after
// RemoveEventHandler from inside a handler.
func ShutDownEventHandler(informer SharedInformer, handle ResourceEventHandlerRegistration) error {
	if err := informer.RemoveEventHandler(handle); err != nil {
		return err
	}
	s, ok := handle.(interface{ ShutdownChan() <-chan struct{} })
	if !ok {
		return fmt.Errorf("handle does not support ShutdownChan()")
	}
	<-s.ShutdownChan()
	return nil
}
