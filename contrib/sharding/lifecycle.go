package sharding

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/kfanout/fanout/informer"
)

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
