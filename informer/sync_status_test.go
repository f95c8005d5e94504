package informer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	"k8s.io/utils/ptr"

	"github.com/kfanout/fanout/internal/fakelw"
	"github.com/kfanout/fanout/internal/syncbuf"
	"github.com/kfanout/fanout/internal/testutil"
)

// forbidden is the error of a list the server refuses for lack of RBAC
// permission.
func forbidden() error {
	return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New(`User "x" cannot list resource "pods"`))
}

// runInformer runs inf until the test ends, or stop is called, and waits
// for it to return.
func runInformer(t *testing.T, inf SharedInformer) (stop func()) {
	stop = testutil.Start(t.Context(), inf.RunWithContext)
	t.Cleanup(stop)
	return stop
}

// TestSyncStatusNotStartedAndStopped: before Run an informer and its
// registrations say they were not started; an informer stopped before it
// synced says so.
func TestSyncStatusNotStartedAndStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.FailList(forbidden(), forbidden(), forbidden())
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		reg, err := inf.AddEventHandler(ResourceEventHandlerFuncs{})
		require.NoError(t, err)

		st := inf.SyncStatus()
		assert.Equal(t, SyncNotStarted, st.State)
		require.Len(t, st.Handlers, 1)
		h, ok := st.Handler(reg)
		require.True(t, ok)
		assert.Equal(t, SyncNotStarted, h.State)
		assert.Equal(t, "*v1.Pod/", h.Name[:len("*v1.Pod/")])
		assert.Contains(t, st.String(), "not started")
		var nse *NotSyncedError
		require.ErrorAs(t, st.Err(), &nse)

		cancel := runInformer(t, inf)
		synctest.Wait()
		cancel()
		synctest.Wait()
		assert.Equal(t, SyncStopped, inf.SyncStatus().State)
	})
}

// TestSyncStatusListFailing: a list refused with 403 is reported with its
// error, the count of attempts and the next retry, for the informer and its
// registration, and WaitForCacheSyncWithContext returns it as an error
// when its context ends. Once the list succeeds, everything is synced.
func TestSyncStatusListFailing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		src.FailList(forbidden(), forbidden())
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		reg, err := inf.AddEventHandler(ResourceEventHandlerFuncs{})
		require.NoError(t, err)
		runInformer(t, inf)
		synctest.Wait()

		st := inf.SyncStatus()
		assert.Equal(t, SyncListFailing, st.State)
		assert.Equal(t, 1, st.Attempts)
		assert.True(t, apierrors.IsForbidden(st.LastError), "%v", st.LastError)
		assert.Equal(t, time.Now(), st.LastErrorTime)
		// client-go's first backoff: 800ms with up to 100% jitter.
		assert.GreaterOrEqual(t, time.Until(st.NextRetry), 800*time.Millisecond)
		assert.LessOrEqual(t, time.Until(st.NextRetry), 1600*time.Millisecond)
		h, _ := st.Handler(reg)
		assert.Equal(t, SyncListFailing, h.State)
		assert.True(t, apierrors.IsForbidden(h.LastError))
		assert.Regexp(t, `^\*v1.Pod: list failing \(1 failed attempts, last error 0s ago: failed to list \*v1.Pod: pods is forbidden: .*; next attempt in [0-9.]+m?s\)$`, st.String())

		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		err = WaitForCacheSyncWithContext(ctx, inf.HasSynced, reg.HasSynced)
		cancel()
		var cse *CacheSyncError
		require.ErrorAs(t, err, &cse)
		assert.True(t, apierrors.IsForbidden(err), "%v", err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		// The statuses are of every running informer of the process (tests
		// of this package may run others); this one's is among them.
		assert.True(t, slices.ContainsFunc(cse.Statuses, func(s SyncStatus) bool {
			return s.Attempts == 2 && apierrors.IsForbidden(s.LastError)
		}), "%v", err)
		assert.Contains(t, err.Error(), "caches did not sync: context deadline exceeded; ")
		assert.Contains(t, err.Error(), "*v1.Pod: list failing (2 failed attempts")

		require.NoError(t, WaitForCacheSyncWithContext(t.Context(), inf.HasSynced, reg.HasSynced))
		st = inf.SyncStatus()
		assert.Equal(t, SyncSynced, st.State)
		assert.Zero(t, st.Attempts)
		assert.NoError(t, st.Err())
		assert.Equal(t, SyncSynced, st.Handlers[0].State)
	})
}

// TestSyncStatusListInProgress: a paged list that has received two of its
// three pages reports the items so far and when it started.
func TestSyncStatusListInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		for i := range 1200 {
			src.Add(siPod(fmt.Sprintf("p%04d", i)))
		}
		release := make(chan struct{})
		pages := 0
		lw := &ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				if pages++; pages == 3 {
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
				return src.ListWithContext(ctx, o)
			},
			WatchFuncWithContext: src.WatchWithContext,
		}
		inf := NewSharedIndexInformer(ToListWatcherWithWatchListSemantics(lw, src), &corev1.Pod{}, 0, nil).(FanoutInformer)
		start := time.Now()
		runInformer(t, inf)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		st := inf.SyncStatus()
		assert.Equal(t, SyncListing, st.State)
		assert.False(t, st.WatchList)
		assert.Equal(t, int64(1000), st.Items)
		assert.Equal(t, start, st.Since)
		assert.Equal(t, "*v1.Pod: list in progress for 3s, 1000 objects so far", st.String())
		close(release)
		synctest.Wait()
		assert.Equal(t, SyncSynced, inf.SyncStatus().State)
	})
}

// TestSyncStatusWatchListInProgress: a watch-list stream that has sent
// three objects and not yet its end bookmark reports them.
func TestSyncStatusWatchListInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fw := watch.NewFake()
		lw := &ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return &corev1.PodList{}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
		}
		inf := NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil).(FanoutInformer)
		runInformer(t, inf)
		synctest.Wait()
		for _, n := range []string{"a", "b", "c"} {
			p := siPod(n)
			p.ResourceVersion = "5"
			fw.Add(p)
		}
		synctest.Wait()
		st := inf.SyncStatus()
		assert.Equal(t, SyncListing, st.State)
		assert.True(t, st.WatchList)
		assert.Equal(t, int64(3), st.Items)
		assert.Contains(t, st.String(), "watch-list stream in progress for 0s, 3 objects so far")
		fw.Stop()
	})
}

// TestSyncStatusDelivering: a handler that blocks distribution
// (OverflowBlock) holds the listed items in the informer's queue; the
// informer reports the list received and the items left.
func TestSyncStatusDelivering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		for _, n := range []string{"a", "b", "c", "d"} {
			src.Add(siPod(n))
		}
		release := make(chan struct{})
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		_, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(any) { <-release }},
			HandlerOptions{Overflow: OverflowBlock, MaxPending: 1})
		require.NoError(t, err)
		runInformer(t, inf)
		synctest.Wait()
		st := inf.SyncStatus()
		assert.Equal(t, SyncDelivering, st.State)
		assert.Zero(t, st.QueueDepth) // RealFIFO popped the whole list as one batch
		assert.Contains(t, st.String(), "listed, writing the list to the cache")
		close(release)
		synctest.Wait()
		assert.Equal(t, SyncSynced, inf.SyncStatus().State)
	})
}

// TestSyncStatusHandlerPending: the informer has synced while its handler
// is still on its first initial add; the registration reports the initial
// notifications not yet handled and the oldest one's age.
func TestSyncStatusHandlerPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		for _, n := range []string{"a", "b", "c"} {
			src.Add(siPod(n))
		}
		release := make(chan struct{})
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		reg, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(any) { <-release }},
			HandlerOptions{Name: "slow", Overflow: OverflowCoalesce, MaxPending: 100})
		require.NoError(t, err)
		runInformer(t, inf)
		synctest.Wait()
		time.Sleep(4 * time.Second)
		st := inf.SyncStatus()
		assert.Equal(t, SyncSynced, st.State)
		h, _ := st.Handler(reg)
		assert.Equal(t, SyncHandlerPending, h.State)
		assert.Equal(t, int64(3), h.PendingInitial)
		assert.Equal(t, 4*time.Second, h.OldestPending)
		assert.Equal(t, "*v1.Pod/slow: handler has 3 initial notifications to handle, the oldest waiting for 4s", func() string {
			var b strings.Builder
			h.describe(&b, time.Now())
			return b.String()
		}())
		assert.Contains(t, st.String(), "*v1.Pod: synced; *v1.Pod/slow: handler has 3 initial notifications")
		close(release)
		synctest.Wait()
		h, _ = inf.SyncStatus().Handler(reg)
		assert.Equal(t, SyncSynced, h.State)
		assert.Zero(t, h.PendingInitial)
	})
}

// TestSyncStatusHandlerPanicked: without RecoverPanics (and with
// ReallyCrash off, as in tests) a panic on an initial add leaves the
// registration unable to sync, and its status says so.
func TestSyncStatusHandlerPanicked(t *testing.T) {
	defer func(c bool) { utilruntime.ReallyCrash = c }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = false
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		src.Add(siPod("b"))
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		reg, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			if obj.(*corev1.Pod).Name == "a" {
				panic("boom")
			}
		}}, HandlerOptions{Name: "crashy"})
		require.NoError(t, err)
		runInformer(t, inf)
		time.Sleep(2 * time.Second) // past the pause after a crash
		synctest.Wait()
		h, _ := inf.SyncStatus().Handler(reg)
		assert.Equal(t, SyncHandlerPanicked, h.State)
		assert.Equal(t, uint64(1), h.Panics)
		assert.Equal(t, int64(1), h.PendingInitial)
		assert.Contains(t, h.Err().Error(), "handler panicked (1 times) on an initial-list add and cannot sync")
	})
}

// TestSyncStatusRecoveredPanicSyncs: with RecoverPanics the same handler
// syncs, as HandlerOptions documents.
func TestSyncStatusRecoveredPanicSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		reg, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{AddFunc: func(any) { panic("boom") }},
			HandlerOptions{RecoverPanics: true, Logger: ptr.To(logr.Discard())})
		require.NoError(t, err)
		runInformer(t, inf)
		synctest.Wait()
		h, _ := inf.SyncStatus().Handler(reg)
		assert.Equal(t, SyncSynced, h.State)
		assert.Equal(t, uint64(1), h.Panics)
	})
}

// TestSyncStatusOf finds the informer behind a typed wrapper and refuses
// anything else.
func TestSyncStatusOf(t *testing.T) {
	inf := NewSharedIndexInformer(fakelw.New(&corev1.Pod{}), &corev1.Pod{}, 0, nil).(FanoutInformer)
	st, err := SyncStatusOf(NewTypedSharedIndexInformer[*corev1.Pod](inf))
	require.NoError(t, err)
	assert.Equal(t, SyncNotStarted, st.State)
	_, err = SyncStatusOf(nil)
	assert.ErrorIs(t, err, ErrNotFanoutInformer)
}

// TestWaitLogsSyncStatusRateLimited: a wait of 35 s on an informer whose
// list keeps failing logs why, first after 1 s and then every 10 s: four
// lines, each naming the 403.
func TestWaitLogsSyncStatusRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		for range 100 {
			src.FailList(forbidden())
		}
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		runInformer(t, inf)
		var buf syncbuf.Buffer
		logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&buf)))
		ctx, cancel := context.WithTimeout(klog.NewContext(t.Context(), logger), 35*time.Second)
		defer cancel()
		require.False(t, WaitForNamedCacheSyncWithContext(ctx, inf.HasSynced))
		var still []string
		for line := range strings.Lines(buf.String()) {
			if strings.Contains(line, "Still waiting for caches to sync") {
				still = append(still, line)
			}
		}
		require.Len(t, still, 4, buf.String())
		for i, waited := range []string{`waited="1s"`, `waited="11s"`, `waited="21s"`, `waited="31s"`} {
			assert.Contains(t, still[i], waited)
			assert.Contains(t, still[i], "pods is forbidden")
		}
	})
}
