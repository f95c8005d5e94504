package informer

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kfanout/fanout/internal/fakelw"
)

// TestWaitForResourceVersionReadsOwnWrites: 200 times, a write to the
// server, a wait for the resourceVersion it returned, and a read from the
// cache that must see that write; on both queues.
func TestWaitForResourceVersionReadsOwnWrites(t *testing.T) {
	for _, inOrder := range []bool{true, false} {
		t.Run(fmt.Sprintf("inOrder=%v", inOrder), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := fakelw.New(&corev1.Pod{})
				// An empty source lists at resourceVersion "0", and a watch
				// from "0" starts at "any" version, as on a real server:
				// a write between that list and watch would be missed. A
				// real server's lists carry a real version; so does this.
				src.Add(siPod("seed"))
				inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, SharedIndexInformerOptions{InOrder: ptr.To(inOrder)}).(FanoutInformer)
				runInformer(t, inf)
				for i := range 200 {
					p := siPod(fmt.Sprintf("p%d", i%20))
					p.Labels = map[string]string{"gen": fmt.Sprint(i)}
					var written runtime.Object
					if i < 20 {
						written = src.Add(p)
					} else {
						written = src.Modify(p)
					}
					rv := written.(*corev1.Pod).ResourceVersion
					ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
					require.NoError(t, inf.WaitForResourceVersion(ctx, rv))
					cancel()
					got, ok, err := inf.GetStore().GetByKey("ns/" + p.Name)
					require.NoError(t, err)
					require.True(t, ok)
					require.Equal(t, fmt.Sprint(i), got.(*corev1.Pod).Labels["gen"], "write %d at rv %s not in the cache", i, rv)
				}
			})
		})
	}
}

// TestWaitForResourceVersionBookmarks: a resourceVersion that no event of
// this resource carries (another resource's) is reached by the bookmark
// that passes it.
func TestWaitForResourceVersionBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fw := watch.NewFake()
		lw := ToListWatcherWithWatchListSemantics(&ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
		}, fakelw.New(&corev1.Pod{}))
		inf := NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil).(FanoutInformer)
		runInformer(t, inf)
		require.NoError(t, inf.WaitForResourceVersion(t.Context(), "10"))

		done := make(chan error, 1)
		go func() { done <- inf.WaitForResourceVersion(t.Context(), "15") }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("returned before the bookmark: %v", err)
		default:
		}
		fw.Action(watch.Bookmark, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "20"}})
		synctest.Wait()
		require.NoError(t, <-done)
		fw.Stop()
	})
}

// TestWaitForResourceVersionAfterRelist: after the server forgot the
// watch's history (410), the relist brings the cache to the write.
func TestWaitForResourceVersionAfterRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		runInformer(t, inf)
		require.True(t, WaitForCacheSync(t.Context().Done(), inf.HasSynced))
		time.Sleep(5 * time.Second) // past the very-short-watch limit
		src.FailWatch(apierrors.NewResourceExpired("too old resource version"))
		src.CloseWatches()
		written := src.Add(siPod("b"))
		require.NoError(t, inf.WaitForResourceVersion(t.Context(), written.(*corev1.Pod).ResourceVersion))
		_, ok, _ := inf.GetStore().GetByKey("ns/b")
		assert.True(t, ok)
		assert.Contains(t, src.CallStrings(), `list rv="1"`, "relisted after the 410")
		assert.Equal(t, informerSyncedRV(t, inf), written.(*corev1.Pod).ResourceVersion)
	})
}

// TestWaitForResourceVersionErrors: not a resourceVersion, the context
// ending (before and after Run) and the informer stopping are each a
// clear error.
func TestWaitForResourceVersionErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		for _, bad := range []string{"", "0", "abc", "-1", "007", "1.5"} {
			err := inf.WaitForResourceVersion(t.Context(), bad)
			assert.ErrorIs(t, err, ErrInvalidResourceVersion, "%q", bad)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err := inf.WaitForResourceVersion(ctx, "5")
		cancel()
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, `waiting for resourceVersion 5, the cache is at "": context deadline exceeded`, err.Error())

		src.Add(siPod("a"))
		stop := runInformer(t, inf)
		ctx, cancel = context.WithTimeout(t.Context(), time.Second)
		err = inf.WaitForResourceVersion(ctx, "99")
		cancel()
		assert.Equal(t, `waiting for resourceVersion 99, the cache is at "1": context deadline exceeded`, err.Error())

		done := make(chan error, 1)
		go func() { done <- inf.WaitForResourceVersion(t.Context(), "99") }()
		synctest.Wait()
		stop()
		synctest.Wait()
		err = <-done
		assert.True(t, errors.Is(err, ErrStoppedBeforeResourceVersion), "%v", err)
	})
}

// informerSyncedRV is the resourceVersion of inf's cache.
func informerSyncedRV(t *testing.T, inf SharedInformer) string {
	t.Helper()
	s, ok := unwrapInformer(inf)
	require.True(t, ok)
	return s.indexer.(*cache).storage.resourceVersion()
}
