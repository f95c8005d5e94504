package ring

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

func newTestClaims(t *testing.T, api *leasetest.API, clk *clocktesting.FakeClock, id string) *Claims {
	t.Helper()
	c, err := NewClaims(testConfig(api, clk, id, 4))
	require.NoError(t, err)
	return c
}

func TestClaimsAcquireRenewRelease(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	a := newTestClaims(t, api, clk, "a")
	b := newTestClaims(t, api, clk, "b")

	ok, err := a.TryAcquire(ctx, 2)
	require.NoError(t, err)
	require.True(t, ok)
	lease, err := api.CoordinationV1().Leases("ns").Get(ctx, "ring-range-2-of-4", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "a", holder(lease))
	assert.Equal(t, map[string]string{LabelRing: "ring", LabelRole: RoleClaim}, lease.Labels)

	ok, err = b.TryAcquire(ctx, 2)
	require.NoError(t, err)
	assert.False(t, ok, "held and fresh")

	// Valid until renewedAt + RenewDeadline (5 s), renewal extends it.
	clk.Step(4999 * time.Millisecond)
	assert.True(t, a.Valid(2))
	clk.Step(time.Millisecond)
	assert.False(t, a.Valid(2))
	require.NoError(t, a.Renew(ctx, 2))
	assert.True(t, a.Valid(2))
	assert.Equal(t, clk.Now().Add(5*time.Second), a.Deadline(2))

	// A released claim is taken at once.
	require.NoError(t, a.Release(ctx, 2))
	assert.False(t, a.Held(2))
	ok, err = b.TryAcquire(ctx, 2)
	require.NoError(t, err)
	assert.True(t, ok)
	lease, err = api.CoordinationV1().Leases("ns").Get(ctx, "ring-range-2-of-4", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), *lease.Spec.LeaseTransitions)

	// a's stale copy cannot renew it back.
	err = a.Renew(ctx, 2)
	assert.True(t, errors.Is(err, ErrClaimLost))
}

// TestClaimsExpiryCountsFromLocalSighting: b takes a's claim only after
// seeing it unchanged for a whole lease duration on b's clock, even when
// b's clock is an hour ahead of a's (the renew time a wrote looks ancient
// to b), and a renewal meanwhile restarts the count.
func TestClaimsExpiryCountsFromLocalSighting(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clkA := clocktesting.NewFakeClock(time.Unix(1000, 0))
	clkB := clocktesting.NewFakeClock(time.Unix(1000, 0).Add(time.Hour))
	step := func(d time.Duration) { clkA.Step(d); clkB.Step(d) }
	a := newTestClaims(t, api, clkA, "a")
	b := newTestClaims(t, api, clkB, "b")

	ok, err := a.TryAcquire(ctx, 0)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = b.TryAcquire(ctx, 0) // first sighting
	require.NoError(t, err)
	require.False(t, ok)

	step(9 * time.Second)
	require.NoError(t, a.Renew(ctx, 0)) // a renews late but in time
	step(time.Second)
	ok, err = b.TryAcquire(ctx, 0) // new resourceVersion: count restarts
	require.NoError(t, err)
	require.False(t, ok)

	step(9999 * time.Millisecond)
	ok, err = b.TryAcquire(ctx, 0)
	require.NoError(t, err)
	require.False(t, ok)
	step(time.Millisecond)
	ok, err = b.TryAcquire(ctx, 0)
	require.NoError(t, err)
	require.True(t, ok, "unchanged for 10 s on b's clock")
	assert.False(t, a.Valid(0), "a stopped long before")
}

// TestClaimsObserveStartsTheCount: Observe counts as a sighting, so a
// replica that starts wanting a range late takes an expired claim at once.
func TestClaimsObserveStartsTheCount(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	a := newTestClaims(t, api, clk, "a")
	b := newTestClaims(t, api, clk, "b")
	ok, err := a.TryAcquire(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, b.Observe(ctx))
	clk.Step(10 * time.Second)
	ok, err = b.TryAcquire(ctx, 1)
	require.NoError(t, err)
	assert.True(t, ok)
}

// TestClaimsRacingTakeoverConflicts: when the lease changes between b's
// read and b's write, the apiserver rejects b's write and b does not hold.
func TestClaimsRacingTakeoverConflicts(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	a := newTestClaims(t, api, clk, "a")
	b := newTestClaims(t, api, clk, "b")
	ok, err := a.TryAcquire(ctx, 3)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, a.Release(ctx, 3))

	// Another writer changes the lease right after b's Get.
	api.PrependReactor("get", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		obj, err := api.Tracker().Get(action.GetResource(), "ns", "ring-range-3-of-4")
		require.NoError(t, err)
		l := obj.(*coordinationv1.Lease).DeepCopy()
		served := l.DeepCopy()
		l.Spec.HolderIdentity = ptr.To("c")
		l.ResourceVersion = "999"
		require.NoError(t, api.Tracker().Update(action.GetResource(), l, "ns"))
		return true, served, nil
	})
	ok, err = b.TryAcquire(ctx, 3)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.False(t, b.Held(3))
}
