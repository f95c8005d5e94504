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
// the handoff was finished outside blockDeltas, AddEventHandler and
// RemoveEventHandler waited behind it.
func TestOverflowBlockHoldsNoRegistrationLock(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src, inf := siSetup(SharedIndexInformerOptions{InOrder: inOrder})
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
