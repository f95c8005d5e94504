package ring

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

// TestObserverKeepsTheNewestVersion: a sighting of an older resource
// version (a watch event that arrives after a newer list) leaves the
// newer sighting in place; a newer one restarts the count; versions that
// cannot be compared restart it whenever they differ, as before.
func TestObserverKeepsTheNewestVersion(t *testing.T) {
	t0 := time.Unix(1000, 0)
	lease := func(rv string) *coordinationv1.Lease {
		return &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: "l", ResourceVersion: rv},
			Spec:       coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To(int32(10))},
		}
	}
	var o observer
	o.expired(lease("7"), t0)
	o.expired(lease("6"), t0.Add(3*time.Second))
	at, _ := o.expiresAt("l")
	assert.Equal(t, t0.Add(10*time.Second), at, "an older version does not move the sighting")
	assert.True(t, o.expired(lease("6"), t0.Add(10*time.Second)), "nor keeps the Lease alive")

	o.expired(lease("8"), t0.Add(11*time.Second))
	at, _ = o.expiresAt("l")
	assert.Equal(t, t0.Add(21*time.Second), at, "a newer version restarts the count")

	o.expired(lease("x"), t0.Add(12*time.Second))
	o.expired(lease("y"), t0.Add(13*time.Second))
	at, _ = o.expiresAt("l")
	assert.Equal(t, t0.Add(23*time.Second), at, "incomparable versions restart it when they differ")
}

// TestCoordinatorWatchedTakeover: with the Coordinator's watch of the
// ring's Leases running, a dead replica's last renewal is seen when it is
// written, so its ranges are taken exactly one lease duration after it,
// not up to a retry period later (TestCoordinatorTakeoverAfterDeath, with
// the same timings and rounds but no watch, takes lease + retry period).
func TestCoordinatorWatchedTakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		api := leasetest.NewAPI()
		clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
		a, b, _, tb, l := newDeathRing(t, api, clk)
		var watcher sync.WaitGroup
		watcher.Go(func() { b.watchLeases(ctx) })
		defer func() {
			cancel()
			watcher.Wait()
		}()
		synctest.Wait()

		a.Round(ctx, false)
		b.Round(ctx, false)
		clk.Step(time.Second)
		a.Round(ctx, false) // a's last renewal, between two of b's rounds; then a dies
		lastRenew := clk.Now()
		synctest.Wait() // b's watch sees it now
		l.mu.Lock()
		clear(l.busy)
		l.mu.Unlock()

		d := takeoverAfter(t, b, tb, clk, lastRenew, synctest.Wait)
		assert.Equal(t, 9*time.Second, d, "lease duration after the last renewal")
	})
}

// TestWatchLeasesRetries: a watch that cannot be opened is tried again
// every retry period until it opens, and ends with ctx.
func TestWatchLeasesRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		api := leasetest.NewAPI()
		var mu sync.Mutex
		tries := 0
		api.PrependWatchReactor("leases", func(k8stesting.Action) (bool, watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			tries++
			if tries <= 2 {
				return true, nil, apierrors.NewServiceUnavailable("injected")
			}
			return false, nil, nil
		})
		clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
		c, err := NewCoordinator(testConfig(api, clk, "a", 8), newFakeTarget("a", newLedger(t)), CoordinatorOptions{})
		require.NoError(t, err)
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.watchLeases(ctx)
		}()
		count := func() int {
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			return tries
		}
		assert.Equal(t, 1, count())
		clk.Step(2*time.Second - time.Millisecond)
		assert.Equal(t, 1, count(), "not before the retry period")
		clk.Step(time.Millisecond)
		assert.Equal(t, 2, count())
		clk.Step(2 * time.Second)
		assert.Equal(t, 3, count(), "the third try opens the watch")
		clk.Step(10 * time.Second)
		assert.Equal(t, 3, count(), "an open watch is not opened again")
		cancel()
		<-done
	})
}
