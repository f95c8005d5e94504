package informer

import (
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverflowBlockHoldsNoRegistrationLock checks that a distribution
// waiting for room on a stalled OverflowBlock handler lets another handler
// be added (it gets the store replayed and every later change exactly once)
// and one be removed. Before
// the handoff was finished outside the hub's delta lock, AddEventHandler and
// RemoveEventHandler waited behind it.
func TestOverflowBlockHoldsNoRegistrationLock(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src, inf := siSetup(SharedIndexInformerOptions{InOrder: queueOption(inOrder)})
		stuck := &siRecorder{block: make(chan struct{})}
		_, err := inf.AddEventHandlerWithOptions(stuck, HandlerOptions{Overflow: OverflowBlock, MaxPending: 1})
		require.NoError(t, err)
		other := &siRecorder{}
		otherReg, err := inf.AddEventHandler(other)
		require.NoError(t, err)
		stop := siRun(t, inf)
		synctest.Wait()

		// stuck is in OnAdd(a) with b pending: c waits for room.
		src.Add(siPod("c"))
		synctest.Wait()
		assert.Equal(t, []string{"add ns/a@1 initial=true"}, stuck.take())

		late := &siRecorder{}
		added := make(chan error, 1)
		go func() {
			_, err := inf.AddEventHandler(late)
			added <- err
		}()
		synctest.Wait()
		require.Len(t, added, 1, "AddEventHandler waited behind a blocked handoff")
		require.NoError(t, <-added)
		got := late.take()
		slices.Sort(got)
		assert.Equal(t, []string{"add ns/a@1 initial=true", "add ns/b@2 initial=true", "add ns/c@3 initial=true"}, got)

		removed := make(chan error, 1)
		go func() { removed <- inf.RemoveEventHandler(otherReg) }()
		synctest.Wait()
		require.Len(t, removed, 1, "RemoveEventHandler waited behind a blocked handoff")
		require.NoError(t, <-removed)

		// Once stuck makes room, c reaches it; late does not get c again.
		close(stuck.block)
		synctest.Wait()
		assert.Equal(t, []string{"add ns/b@2 initial=true", "add ns/c@3 initial=false"}, stuck.take())
		src.Add(siPod("d"))
		synctest.Wait()
		assert.Equal(t, []string{"add ns/d@4 initial=false"}, late.take())
		assert.Equal(t, []string{"add ns/a@1 initial=true", "add ns/b@2 initial=true", "add ns/c@3 initial=false"}, other.take())
		stop()
	})
}

// TestOverflowBlockReplayDoesNotWait checks that the store replayed to a
// stalled OverflowBlock handler added to a running informer is queued
// whatever MaxPending is: AddEventHandler and RemoveEventHandler return,
// and once released the handler gets the replay, then later changes, in
// order, and is synced. Before the replay was queued without the room
// check, AddEventHandler waited for the handler under startedLock and
// the hub's delta lock.
func TestOverflowBlockReplayDoesNotWait(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src, inf := siSetup(SharedIndexInformerOptions{InOrder: queueOption(inOrder)})
		for _, n := range []string{"c", "d", "e"} {
			src.Add(siPod(n))
		}
		other := &siRecorder{}
		otherReg, err := inf.AddEventHandler(other)
		require.NoError(t, err)
		stop := siRun(t, inf)
		defer stop()
		synctest.Wait()
		require.True(t, inf.HasSynced())

		late := &siRecorder{block: make(chan struct{})}
		released := false
		release := func() {
			if !released {
				released = true
				close(late.block)
			}
		}
		defer func() { release(); synctest.Wait() }() // frees a hung AddEventHandler if the test fails
		type result struct {
			reg ResourceEventHandlerRegistration
			err error
		}
		added := make(chan result, 1)
		go func() {
			reg, err := inf.AddEventHandlerWithOptions(late, HandlerOptions{Overflow: OverflowBlock, MaxPending: 1})
			added <- result{reg, err}
		}()
		synctest.Wait()
		require.Len(t, added, 1, "AddEventHandler waited for room in the replay")
		res := <-added
		require.NoError(t, res.err)
		assert.False(t, res.reg.HasSynced())
		// late is in OnAdd of the first replayed add; the other four wait.
		st, ok := StatsOf(res.reg)
		require.True(t, ok)
		assert.Equal(t, int64(4), st.Pending)
		// 5 if the whole replay was queued before late took its first add,
		// 4 if it took it meanwhile: both goroutines run in the bubble.
		highWater := st.HighWater
		assert.Contains(t, []int64{4, 5}, highWater)

		removed := make(chan error, 1)
		go func() { removed <- inf.RemoveEventHandler(otherReg) }()
		synctest.Wait()
		require.Len(t, removed, 1, "RemoveEventHandler waited behind the replay")
		require.NoError(t, <-removed)

		// A change after the replay waits for room as before.
		src.Add(siPod("f"))
		synctest.Wait()
		st, _ = StatsOf(res.reg)
		assert.Equal(t, int64(4), st.Pending)

		release()
		synctest.Wait()
		got := late.take()
		require.Len(t, got, 6)
		replay := slices.Clone(got[:5])
		slices.Sort(replay)
		assert.Equal(t, []string{
			"add ns/a@1 initial=true", "add ns/b@2 initial=true", "add ns/c@3 initial=true",
			"add ns/d@4 initial=true", "add ns/e@5 initial=true",
		}, replay)
		assert.Equal(t, "add ns/f@6 initial=false", got[5])
		assert.True(t, res.reg.HasSynced())
		st, _ = StatsOf(res.reg)
		assert.Equal(t, int64(0), st.Pending)
		assert.Equal(t, highWater, st.HighWater, "f waited for room, so the high water did not move")

		src.Delete(siPod("a"))
		synctest.Wait()
		assert.Equal(t, []string{"delete ns/a@7"}, late.take())
	})
}
