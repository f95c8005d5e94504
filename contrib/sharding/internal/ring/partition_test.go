package ring

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

// partitionedLeases is one replica's view of the Leases: while cut is set,
// every call fails as an unreachable apiserver's would, for this replica
// only.
type partitionedLeases struct {
	inner coordinationv1client.LeasesGetter
	cut   *atomic.Bool
}

func (p partitionedLeases) Leases(ns string) coordinationv1client.LeaseInterface {
	return partitionedLeaseClient{p.inner.Leases(ns), p.cut}
}

type partitionedLeaseClient struct {
	coordinationv1client.LeaseInterface
	cut *atomic.Bool
}

func (p partitionedLeaseClient) err() error {
	if p.cut.Load() {
		return apierrors.NewServiceUnavailable("partitioned")
	}
	return nil
}

func (p partitionedLeaseClient) Get(ctx context.Context, name string, o metav1.GetOptions) (*coordinationv1.Lease, error) {
	if err := p.err(); err != nil {
		return nil, err
	}
	return p.LeaseInterface.Get(ctx, name, o)
}

func (p partitionedLeaseClient) List(ctx context.Context, o metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	if err := p.err(); err != nil {
		return nil, err
	}
	return p.LeaseInterface.List(ctx, o)
}

func (p partitionedLeaseClient) Create(ctx context.Context, l *coordinationv1.Lease, o metav1.CreateOptions) (*coordinationv1.Lease, error) {
	if err := p.err(); err != nil {
		return nil, err
	}
	return p.LeaseInterface.Create(ctx, l, o)
}

func (p partitionedLeaseClient) Update(ctx context.Context, l *coordinationv1.Lease, o metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if err := p.err(); err != nil {
		return nil, err
	}
	return p.LeaseInterface.Update(ctx, l, o)
}

func (p partitionedLeaseClient) Delete(ctx context.Context, name string, o metav1.DeleteOptions) error {
	if err := p.err(); err != nil {
		return err
	}
	return p.LeaseInterface.Delete(ctx, name, o)
}

// TestCoordinatorPartitionedReplica: replica a owns every range and is cut
// off from the apiserver (not killed) while b, which can reach it, joins.
// a stops delivering by its renew deadline, before its claims can expire;
// b starts a range only after a stopped it and its claim expired (the
// ledger fails the test on any overlap). When the partition heals, a
// rejoins and gets ranges back through graceful handovers, again without
// overlap.
func TestCoordinatorPartitionedReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		api := leasetest.NewAPI()
		clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
		l := newLedger(t)
		ta, tb := newFakeTarget("a", l), newFakeTarget("b", l)
		var cut atomic.Bool
		cfgA := testConfig(api, clk, "a", 8)
		cfgA.Client = partitionedLeases{cfgA.Client, &cut}
		a, err := NewCoordinator(cfgA, ta, CoordinatorOptions{})
		require.NoError(t, err)
		b := newTestCoordinator(t, api, clk, "b", tb)

		a.Round(ctx, false)
		synctest.Wait()
		require.Len(t, ta.owned(), 8)
		lastRenew := clk.Now()
		cut.Store(true)

		// Run both as Run would, each at its own next wake-up.
		due := map[*Coordinator]time.Time{a: clk.Now().Add(a.nextWait()), b: clk.Now()}
		step := func() {
			next := due[a]
			if due[b].Before(next) {
				next = due[b]
			}
			clk.SetTime(next)
			for _, c := range []*Coordinator{a, b} {
				if !due[c].After(clk.Now()) {
					c.Round(ctx, false)
					synctest.Wait()
					due[c] = clk.Now().Add(max(c.nextWait(), time.Millisecond))
				}
			}
		}
		var aStopped, bStarted time.Time
		for clk.Since(lastRenew) < 40*time.Second && (aStopped.IsZero() || bStarted.IsZero() || len(tb.owned()) < 8) {
			step()
			if aStopped.IsZero() && len(ta.owned()) == 0 {
				aStopped = clk.Now()
			}
			if bStarted.IsZero() && len(tb.owned()) > 0 {
				bStarted = clk.Now()
			}
		}
		require.False(t, aStopped.IsZero(), "a never stopped")
		require.False(t, bStarted.IsZero(), "b never started")
		assert.LessOrEqual(t, aStopped.Sub(lastRenew), cfgA.RenewDeadline, "a stops by its renew deadline")
		assert.Less(t, aStopped.Sub(lastRenew), cfgA.LeaseDuration, "a stops before its claims can expire")
		assert.True(t, bStarted.After(aStopped), "b starts after a stopped")
		assert.GreaterOrEqual(t, bStarted.Sub(lastRenew), cfgA.LeaseDuration, "b starts after a's claims expired")
		assert.Len(t, tb.owned(), 8)
		t.Logf("partitioned a stopped %v after its last renewal (renew deadline %v); b started %v after that (lease %v)",
			aStopped.Sub(lastRenew), cfgA.RenewDeadline, bStarted.Sub(aStopped), cfgA.LeaseDuration)

		// Healed: a rejoins, b hands ranges over gracefully.
		cut.Store(false)
		healed := clk.Now()
		for clk.Since(healed) < 60*time.Second && (len(ta.owned()) == 0 || len(ta.owned())+len(tb.owned()) < 8) {
			step()
		}
		assert.NotEmpty(t, ta.owned(), "a rejoined")
		assert.Equal(t, 8, len(ta.owned())+len(tb.owned()), "every range delivered once")
	})
}
