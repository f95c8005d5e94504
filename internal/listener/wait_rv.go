package listener

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// errWaitUnsupported is returned by WaitForResourceVersion on a listener
// whose handler runs on several workers.
var errWaitUnsupported = fmt.Errorf("listener: WaitForResourceVersion with Workers > 1: %w (notifications of different keys finish out of order)", errors.ErrUnsupported)

// errWaitRemoved is returned by WaitForResourceVersion once the listener
// was removed or its informer stopped.
var errWaitRemoved = errors.New("listener: the registration was removed or its informer stopped before the handler reached the resourceVersion")

// seqPollPeriod is how often WaitForResourceVersion looks at the Seqs the
// handler has returned from.
const seqPollPeriod = 2 * time.Millisecond

// seqPublishEvery is how many handler returns may pass, under a steady
// backlog with nobody waiting, before a listener publishes how far its
// handler has got.
const seqPublishEvery = 64

// seqWatch tracks the highest Seq of a notification the handler has
// returned from (or that needs no call: see Hub.Register).
type seqWatch struct {
	v       atomic.Uint64 // the published highest Seq
	waiters atomic.Int32  // WaitForResourceVersion calls in progress
	// local and unpublished belong to the goroutine that calls the
	// handler: the highest Seq returned from, and the returns since v was
	// last written.
	local       uint64
	unpublished int
}

// returned notes, on the goroutine that calls the handler, that the
// handler is done with every notification up to seq (0, a resync,
// changes nothing); pending is what the engine reported left, the
// notification just handled possibly included. It publishes that while
// someone waits, when at most one notification was left (so an idle
// listener has published everything it returned from) and otherwise every
// seqPublishEvery returns: an atomic write per handler call cost 7% of the
// CPU at 100 handlers.
func (l *Listener) returned(seq uint64, pending int64) {
	w := &l.seqs
	w.local = max(w.local, seq)
	w.unpublished++
	if pending <= 1 || w.unpublished >= seqPublishEvery || w.waiters.Load() != 0 {
		w.unpublished = 0
		w.publish(w.local)
	}
}

// publish raises the published Seq to seq.
func (w *seqWatch) publish(seq uint64) {
	for {
		cur := w.v.Load()
		if seq <= cur || w.v.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// WaitForResourceVersion waits until the informer's cache has applied
// resourceVersion (or a newer one) and then until this handler has
// returned from every notification of the changes applied up to then: it
// has been called for everything up to resourceVersion. Notifications are
// numbered by the informer as it distributes them, so bookmarks and
// relists count as they do for the cache; a resync is not waited for. A
// notification merged into a later one by OverflowCoalesce counts as
// handled with it; an Add cancelled by a Delete there is accounted with
// the next notification the handler returns from.
//
// It returns the informer's error for a resourceVersion that is not one
// (informer.ErrInvalidResourceVersion), an error wrapping
// errors.ErrUnsupported with Workers > 1 (different keys finish out of
// order, so no single position says "everything before is done"), an
// error if the registration is removed or the informer stops first, and
// one wrapping the context's error if ctx ends first.
func (l *Listener) WaitForResourceVersion(ctx context.Context, resourceVersion string) error {
	if l.config.Workers > 1 {
		return errWaitUnsupported
	}
	if l.waitSeq == nil {
		return errors.New("listener: WaitForResourceVersion needs a listener registered with an informer")
	}
	l.seqs.waiters.Add(1)
	defer l.seqs.waiters.Add(-1)
	target, err := l.waitSeq(ctx, resourceVersion)
	if err != nil {
		return err
	}
	for {
		done := l.seqs.v.Load()
		if done >= target {
			return nil
		}
		select {
		case <-l.runFinished:
			return errWaitRemoved
		default:
		}
		t := l.clock.NewTimer(seqPollPeriod)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting for handler %s to reach resourceVersion %s (change %d, it is at %d): %w", l.name, resourceVersion, target, done, context.Cause(ctx))
		case <-l.runFinished:
			t.Stop()
		case <-t.C():
		}
	}
}

// LastSeq returns the Seq of the last change the hub distributed.
func (h *Hub) LastSeq() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}
