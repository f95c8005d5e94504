package informer

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/internal/fakelw"
	"github.com/kfanout/fanout/listener"
)

// TestInformerStatsOf checks every figure of InformerStatsOf before Run,
// once synced, and after the watch was restarted.
func TestInformerStatsOf(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		src.Add(siPod("b"))
		var last atomic.Pointer[watch.Interface]
		lw := &ListWatch{
			ListWithContextFunc: src.ListWithContext,
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				w, err := src.WatchWithContext(ctx, o)
				if err == nil {
					last.Store(&w)
				}
				return w, err
			},
		}
		inf := NewSharedIndexInformer(ToListWatcherWithWatchListSemantics(lw, src), &corev1.Pod{}, 0, nil)

		st, ok := InformerStatsOf(inf)
		require.True(t, ok)
		assert.Equal(t, InformerStats{Name: "*v1.Pod", ObjectType: "*v1.Pod", QueueDepth: -1}, st)

		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { inf.RunWithContext(ctx) })
		synctest.Wait()
		st, _ = InformerStatsOf(inf)
		assert.Equal(t, InformerStats{
			Name: "*v1.Pod", ObjectType: "*v1.Pod", Started: true, Synced: true,
			StoreSize: 2, QueueDepth: 0, LastSyncResourceVersion: src.ResourceVersion(), WatchesStarted: 1,
		}, st)

		time.Sleep(5 * time.Second) // past the very-short-watch limit
		(*last.Load()).Stop()
		synctest.Wait()
		st, _ = InformerStatsOf(inf)
		assert.Equal(t, uint64(2), st.WatchesStarted)

		cancel()
		wg.Wait()
		st, _ = InformerStatsOf(inf)
		assert.True(t, st.Stopped)
	})
}

// TestHandlersOf checks the configuration and counters HandlersOf lists, in
// registration order, through a typed informer too.
func TestHandlersOf(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf := siSetup(SharedIndexInformerOptions{})
		typed := NewTypedSharedIndexInformer[*corev1.Pod](inf)
		release := make(chan struct{})
		_, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{}, HandlerOptions{Name: "fast"})
		require.NoError(t, err)
		stalled, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(any) { <-release }},
			HandlerOptions{Name: "stalled", Overflow: OverflowCoalesce, MaxPending: 10, Workers: 2, RecoverPanics: true})
		require.NoError(t, err)
		stop := siRun(t, inf)
		synctest.Wait()
		time.Sleep(time.Minute)

		hs, ok := HandlersOf(typed)
		require.True(t, ok)
		require.Len(t, hs, 2)
		assert.Equal(t, "fast", hs[0].Name)
		assert.Equal(t, listener.Config{Engine: EngineDirect, Overflow: OverflowGrow, Workers: 1}, hs[0].Config)
		assert.True(t, hs[0].Synced)
		assert.Equal(t, uint64(2), hs[0].Stats.Delivered)
		assert.Equal(t, int64(0), hs[0].Stats.Pending)
		assert.Equal(t, stalled, hs[1].Registration)
		assert.Equal(t, listener.Config{Engine: EngineDirect, Overflow: OverflowCoalesce, MaxPending: 10, Workers: 2, RecoverPanics: true}, hs[1].Config)
		assert.False(t, hs[1].Synced)
		close(release)
		stop()
	})
}

// TestStatsOfOtherInformer checks that a foreign informer is refused.
func TestStatsOfOtherInformer(t *testing.T) {
	var other SharedInformer
	_, ok := InformerStatsOf(other)
	assert.False(t, ok)
	_, ok = HandlersOf(other)
	assert.False(t, ok)
}
