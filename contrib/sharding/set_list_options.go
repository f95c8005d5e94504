package sharding

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kfanout/fanout/informer"
)

// SetListOptions replaces the ListScope (namespaces, and the tweak of every
// list and watch) of the informer of every owned range, and of the ranges
// started later. Each range informer switches as informer.FanoutInformer's
// SetListOptions describes: its objects that leave the selection are
// deleted (a DeletedFinalStateUnknown), those that enter it are added,
// and those in both are delivered only if they changed. Handlers see each
// range's switch in that range's order, as they see everything else.
//
// The scope is checked first, once, against the unsharded source (the
// informer package's checks: selectors that parse, valid namespace names,
// a one-object list the server accepts, no namespaces for a
// cluster-scoped resource); an error there changes nothing. A range whose
// own check then fails (the server became unreachable) stops the call:
// the error names the ranges already switched, and calling again with the
// same scope finishes the job. It fails once the informer has stopped.
func (s *ShardedInformer) SetListOptions(ctx context.Context, scope informer.ListScope) error {
	if s.IsStopped() {
		return errors.New("sharding: SetListOptions: the informer has stopped")
	}
	// A throwaway informer of the package runs its checks; it is never
	// run and starts no goroutine.
	check := informer.NewSharedIndexInformerWithOptions(s.lw, s.example, informer.SharedIndexInformerOptions{})
	if err := check.(informer.FanoutInformer).SetListOptions(ctx, scope); err != nil {
		return err
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return errors.New("sharding: SetListOptions: the informer has stopped")
	}
	s.opts.Informer.ListScope = scope
	ranges := make([]*rangeInformer, 0, len(s.ranges))
	for _, ri := range s.ranges {
		ranges = append(ranges, ri)
	}
	s.mu.Unlock()
	slices.SortFunc(ranges, func(a, b *rangeInformer) int { return a.r.Index - b.r.Index })
	var switched []Range
	for _, ri := range ranges {
		fi, ok := ri.inf.(informer.FanoutInformer)
		if !ok {
			continue // never: ranges run the package's informers
		}
		if err := fi.SetListOptions(ctx, scope); err != nil {
			if ri.inf.IsStopped() {
				continue // the range was lost meanwhile
			}
			return fmt.Errorf("sharding: SetListOptions switched ranges %v, not range %v and later: %w", switched, ri.r, err)
		}
		switched = append(switched, ri.r)
	}
	return nil
}

var _ informer.FanoutInformer = (*ShardedInformer)(nil)
