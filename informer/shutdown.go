package informer

import (
	"context"
	"errors"
	"fmt"

	"github.com/kfanout/fanout/internal/informermetrics"
)

// errShutDown is the cause of a Run context ended by Shutdown.
var errShutDown = errors.New("informer: shut down")

// runLife is what Shutdown needs of a run; the informer's startedLock
// guards it.
type runLife struct {
	// shutDown is set by the first Shutdown; Run refuses to start after.
	shutDown bool
	// cancel ends the context of the running Run; nil outside Run.
	cancel context.CancelCauseFunc
	// done is closed when Run returns; made by whichever of Run and
	// Shutdown comes first.
	done chan struct{}
}

// doneLocked returns the channel closed when Run returns.
func (l *runLife) doneLocked() chan struct{} {
	if l.done == nil {
		l.done = make(chan struct{})
	}
	return l.done
}

// runContext returns the context Run runs on, which Shutdown ends, and
// the function Run calls last, once every goroutine it started has
// returned.
func (s *sharedIndexInformer) runContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	s.startedLock.Lock()
	s.life.cancel = cancel
	done := s.life.doneLocked()
	if s.life.shutDown {
		cancel(errShutDown)
	}
	s.startedLock.Unlock()
	return ctx, func() {
		cancel(nil)
		s.startedLock.Lock()
		s.life.cancel = nil
		s.startedLock.Unlock()
		close(done)
	}
}

// Shutdown stops the informer as if Run's stop channel had been closed,
// and waits until Run has returned: the reflector and its watch are
// stopped, the queue drained no further, every handler's listener ended
// (a handler call in progress is waited for, so do not call it from a
// handler with a context that does not end) and their metrics released.
// It is terminal: a later Run logs client-go's "has started, run more
// than once is not allowed" and returns, AddEventHandler and AddIndexers
// fail as on any stopped informer. On an informer that never ran it
// returns at once and the informer counts as stopped. It returns nil once
// Run has returned (or never ran), and the context's error if ctx ends
// first; it may be called again, also concurrently.
func (s *sharedIndexInformer) Shutdown(ctx context.Context) error {
	s.startedLock.Lock()
	s.life.shutDown = true
	if !s.started {
		s.stopped = true
		s.startedLock.Unlock()
		s.releaseInformerMetrics()
		return nil
	}
	if s.life.cancel != nil {
		s.life.cancel(errShutDown)
	}
	done := s.life.doneLocked()
	s.startedLock.Unlock()
	select {
	case <-done:
		s.releaseInformerMetrics()
		return nil
	case <-ctx.Done():
		return fmt.Errorf("informer %s: waiting for Run to return: %w", s.metricsName, context.Cause(ctx))
	}
}

// releaseInformerMetrics deletes the informer's own series at providers
// that can (the handlers' series are released as their listeners stop).
func (s *sharedIndexInformer) releaseInformerMetrics() {
	informermetrics.ReleaseInformer(s.metricsProvider, s.listenerMetrics, s.identifier, s.metricsName)
}
