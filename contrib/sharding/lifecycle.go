package sharding

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/kfanout/fanout/informer"
)

var _ informer.FanoutInformer = (*ShardedInformer)(nil)

// SyncStatus reports what the sharded informer and each of its handler
// registrations wait for: the ring (which ranges this replica owns), or
// the status of the first owned range, in range order, that has not
// synced (its name says which range).
func (s *ShardedInformer) SyncStatus() informer.SyncStatus {
	desc := s.opts.Informer.ObjectDescription
	if desc == "" {
		desc = fmt.Sprintf("%T", s.example)
	}
	s.mu.Lock()
	// A Coordinator of the user's own may start ranges without Run.
	started, stopped, settled := s.started || s.settled || len(s.ranges) > 0, s.stopped, s.settled
	ranges := make([]*rangeInformer, 0, len(s.ranges))
	for _, ri := range s.ranges {
		ranges = append(ranges, ri)
	}
	regs := make([]map[*registration]informer.ResourceEventHandlerRegistration, len(ranges))
	handlers := slices.Clone(s.handlers)
	slices.SortFunc(ranges, func(a, b *rangeInformer) int { return a.r.Index - b.r.Index })
	for i, ri := range ranges {
		regs[i] = make(map[*registration]informer.ResourceEventHandlerRegistration, len(ri.regs))
		for k, v := range ri.regs {
			regs[i][k] = v
		}
	}
	s.mu.Unlock()

	st := informer.SyncStatus{Name: desc}
	statuses := make([]informer.SyncStatus, len(ranges))
	for i, ri := range ranges {
		statuses[i], _ = informer.SyncStatusOf(ri.inf) // a range's informer is always fanout's
	}
	first := func(ok func(informer.SyncStatus) bool) (informer.SyncStatus, bool) {
		for _, rs := range statuses {
			if !ok(rs) {
				return rs, false
			}
		}
		return informer.SyncStatus{}, true
	}
	switch {
	case s.HasSynced():
		st.State = informer.SyncSynced
	case !started:
		st.State = informer.SyncNotStarted
	case stopped:
		st.State = informer.SyncStopped
	case !settled:
		st.State = informer.SyncWaitingForShards
	default:
		if rs, ok := first(informer.SyncStatus.Synced); !ok {
			st = rs
			st.Handlers = nil
		} else {
			st.State = informer.SyncSynced // a range synced meanwhile
		}
	}
	// A switch of list options runs in every range at once: it is in
	// progress while any range still serves the old options, since the
	// earliest asking; the failed lists told are the first such range's.
	for _, rs := range statuses {
		if !rs.Switching {
			continue
		}
		if !st.Switching || rs.SwitchingSince.Before(st.SwitchingSince) {
			st.SwitchingSince = rs.SwitchingSince
		}
		if !st.Switching && st.State == informer.SyncSynced {
			st.Attempts, st.LastError, st.LastErrorTime, st.NextRetry = rs.Attempts, rs.LastError, rs.LastErrorTime, rs.NextRetry
		}
		st.Switching = true
	}
	for _, reg := range handlers {
		hs := informer.SyncStatus{Name: desc + "/" + reg.displayName(), Registration: reg, State: informer.SyncSynced}
		switch {
		case reg.HasSynced():
		case st.State != informer.SyncSynced:
			hs.State = st.State
		default:
			for i := range ranges {
				if rs, ok := statuses[i].Handler(regs[i][reg]); ok && !rs.Synced() {
					hs = rs
					hs.Registration = reg
					break
				}
			}
		}
		st.Handlers = append(st.Handlers, hs)
	}
	return st
}

// displayName is the handler's name in a SyncStatus: HandlerOptions.Name,
// or the handler's type.
func (r *registration) displayName() string {
	if r.opts.Name != "" {
		return r.opts.Name
	}
	return fmt.Sprintf("%T", r.handler)
}

// WaitForResourceVersion waits until the informer of every range owned
// when it is called has applied resourceVersion or a newer one (see
// informer.FanoutInformer's WaitForResourceVersion); each range has its
// own watch, so each is waited for. Ranges gained later list at a newer
// resourceVersion anyway.
func (s *ShardedInformer) WaitForResourceVersion(ctx context.Context, resourceVersion string) error {
	s.mu.Lock()
	infs := make([]informer.FanoutInformer, 0, len(s.ranges))
	for _, ri := range s.ranges {
		if fi, ok := ri.inf.(informer.FanoutInformer); ok { // always: ranges run fanout informers
			infs = append(infs, fi)
		}
	}
	s.mu.Unlock()
	if len(infs) == 0 {
		// Still check the argument, as a single informer does.
		if _, err := resourceversion.CompareResourceVersion(resourceVersion, resourceVersion); err != nil {
			return fmt.Errorf("%w: %q (%v)", informer.ErrInvalidResourceVersion, resourceVersion, err)
		}
	}
	for _, inf := range infs {
		if err := inf.WaitForResourceVersion(ctx, resourceVersion); err != nil {
			return err
		}
	}
	return nil
}

// errShutDown is the cause of a Run context ended by Shutdown.
var errShutDown = errors.New("sharding: informer shut down")

// shardedLife is what Shutdown needs of a run; ShardedInformer.mu guards
// it.
type shardedLife struct {
	// shutDown is set by the first Shutdown: Run and StartRange refuse
	// after it.
	shutDown bool
	// cancel ends the context of the running Run; nil outside Run.
	cancel context.CancelCauseFunc
	// done is closed when Run returns.
	done chan struct{}
}

// runContextLocked returns the context Run runs on, which Shutdown ends,
// and the function Run calls last.
func (s *ShardedInformer) runContextLocked(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	s.life.cancel, s.life.done = cancel, done
	return ctx, func() {
		cancel(nil)
		s.mu.Lock()
		s.life.cancel = nil
		s.mu.Unlock()
		close(done)
	}
}

// Shutdown stops the sharded informer for good, whatever Run's context:
// every range informer, its watch and its handlers stop (ranges are not
// handed over gracefully: other replicas take them over once this one
// leaves the ring), and Run, if running, returns. It also stops an
// informer driven by a Coordinator of the user's own (StartRange refuses
// after it). It waits until that is done or ctx ends, and returns the
// context's error in the latter case; it may be called again.
func (s *ShardedInformer) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.life.shutDown = true
	var done <-chan struct{}
	if s.life.cancel != nil {
		s.life.cancel(errShutDown)
		done = s.life.done
	}
	s.mu.Unlock()
	if done == nil {
		// Not in Run: stop the ranges a Coordinator of the user's own
		// may have started. The goroutine ends when they have.
		stopped := make(chan struct{})
		go func() { defer close(stopped); s.stop() }()
		done = stopped
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sharded informer: waiting for it to stop: %w", context.Cause(ctx))
	}
}

var _ informer.FanoutRegistration = (*registration)(nil)

// WaitForResourceVersion waits until, on every range owned when it is
// called, the range's informer has applied resourceVersion and this
// handler has been called for every change it applied up to then (see
// informer.FanoutRegistration); ranges gained later list at a newer
// resourceVersion anyway.
func (r *registration) WaitForResourceVersion(ctx context.Context, resourceVersion string) error {
	s := r.s
	s.mu.Lock()
	regs := make([]informer.FanoutRegistration, 0, len(s.ranges))
	for _, ri := range s.ranges {
		if fr, ok := ri.regs[r].(informer.FanoutRegistration); ok {
			regs = append(regs, fr)
		}
	}
	s.mu.Unlock()
	if len(regs) == 0 {
		if _, err := resourceversion.CompareResourceVersion(resourceVersion, resourceVersion); err != nil {
			return fmt.Errorf("%w: %q (%v)", informer.ErrInvalidResourceVersion, resourceVersion, err)
		}
	}
	for _, fr := range regs {
		if err := fr.WaitForResourceVersion(ctx, resourceVersion); err != nil {
			return err
		}
	}
	return nil
}
