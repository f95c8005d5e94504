package sharding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/informer"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
)

// TestShardedSyncStatus: before the first round the sharded informer
// waits for the ring; then a handler still on its initial adds is named
// with its range; once it has returned, everything is synced.
func TestShardedSyncStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		rng := rand.New(rand.NewPCG(1, 2))
		src := newObjectSource(t, true, 4)
		for i := range 40 {
			src.create(t, rng, fmt.Sprintf("cm-%d", i))
		}
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
		assert.Equal(t, informer.SyncNotStarted, s.SyncStatus().State)
		release := make(chan struct{})
		reg, err := s.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{AddFunc: func(any) { <-release }},
			informer.HandlerOptions{Name: "slow"})
		require.NoError(t, err)
		rs, _ := ring.Ranges(4)
		s.StartRange(ctx, rs[2])
		synctest.Wait()
		assert.Equal(t, informer.SyncWaitingForShards, s.SyncStatus().State)

		s.RoundDone()
		synctest.Wait()
		st := s.SyncStatus()
		assert.Equal(t, informer.SyncSynced, st.State)
		h, ok := st.Handler(reg)
		require.True(t, ok)
		assert.Equal(t, informer.SyncHandlerPending, h.State)
		assert.Positive(t, h.PendingInitial)
		assert.True(t, strings.HasPrefix(h.Name, "*v1.ConfigMap range "+rs[2].String()+"/slow"), h.Name)

		close(release)
		synctest.Wait()
		h, _ = s.SyncStatus().Handler(reg)
		assert.Equal(t, informer.SyncSynced, h.State)
		cancel()
		s.StopRange(context.Background(), rs[2], false)
		s.Wait()
	})
}

// TestShardedWaitForResourceVersion: the wait goes to every owned range's
// informer (the fake clientset here hands out no resourceVersions, so the
// ranges never reach one and the context ends it); a bad resourceVersion
// is refused with or without ranges.
func TestShardedWaitForResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		src := newObjectSource(t, true, 2)
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
		assert.ErrorIs(t, s.WaitForResourceVersion(ctx, "x"), informer.ErrInvalidResourceVersion)
		require.NoError(t, s.WaitForResourceVersion(ctx, "5"), "no range owned: nothing to wait for")
		rs, _ := ring.Ranges(2)
		for _, r := range rs {
			s.StartRange(ctx, r)
		}
		s.RoundDone()
		assert.ErrorIs(t, s.WaitForResourceVersion(ctx, "0"), informer.ErrInvalidResourceVersion)
		tctx, tcancel := context.WithTimeout(ctx, time.Second)
		assert.ErrorIs(t, s.WaitForResourceVersion(tctx, "5"), context.DeadlineExceeded)
		tcancel()
		cancel()
		for _, r := range rs {
			s.StopRange(context.Background(), r, false)
		}
		s.Wait()
	})
}

// TestShardedShutdown: Shutdown stops every range a Coordinator of the
// user's own started, with a context that never ends, and every goroutine
// of the informer returns (the bubble would deadlock otherwise); the
// informer then refuses ranges, handlers and Run.
func TestShardedShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		src := newObjectSource(t, true, 2)
		for i := range 10 {
			src.create(t, rng, fmt.Sprintf("cm-%d", i))
		}
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
		var fi informer.FanoutInformer = s
		_, err := s.AddEventHandler(informer.ResourceEventHandlerFuncs{})
		require.NoError(t, err)
		rs, _ := ring.Ranges(4)
		for _, r := range rs[:2] {
			s.StartRange(context.Background(), r)
		}
		s.RoundDone()
		synctest.Wait()
		require.True(t, s.HasSynced())

		require.NoError(t, fi.Shutdown(t.Context()))
		assert.True(t, s.IsStopped())
		s.StartRange(context.Background(), rs[3])
		assert.ElementsMatch(t, rs[:2], s.OwnedRanges(), "a shut-down informer starts no range")
		_, err = s.AddEventHandler(informer.ResourceEventHandlerFuncs{})
		require.Error(t, err)
		s.RunWithContext(context.Background()) // returns at once
		require.NoError(t, fi.Shutdown(t.Context()))
	})
}
