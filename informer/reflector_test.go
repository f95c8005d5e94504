package informer

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/internal/fakelw"
)

func newTestReflector(lw ListerWatcher, store ReflectorStore, opts ReflectorOptions) *Reflector {
	opts.Name = "test"
	return NewReflectorWithOptions(lw, &corev1.Pod{}, store, opts)
}

func TestReflectorListThenWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(testPodNamed("a"))
		src.Add(testPodNamed("b"))
		store := &recordingStore{}
		r := newTestReflector(src, store, ReflectorOptions{})
		stop := runReflector(t, r)

		equalLines(t, "calls", src.CallStrings(), []string{`list rv="0" limit=500`, `watch rv="2" bookmarks`})
		if ts := src.Calls()[1].Options.TimeoutSeconds; ts == nil || *ts < 300 || *ts >= 600 {
			t.Fatalf("watch timeout %v, want in [300, 600)", ts)
		}
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1 b@2] rv=2"})
		if got := r.LastSyncResourceVersion(); got != "2" {
			t.Fatalf("LastSyncResourceVersion = %q after list, want 2", got)
		}

		src.Add(testPodNamed("c"))
		src.Modify(testPodNamed("a"))
		src.Delete(testPodNamed("b"))
		synctest.Wait()
		equalLines(t, "store", store.takeOps(), []string{"add c@3", "update a@4", "delete b@5"})
		if got := r.LastSyncResourceVersion(); got != "5" {
			t.Fatalf("LastSyncResourceVersion = %q, want 5", got)
		}
		stop()
		if n := src.OpenWatches(); n != 0 {
			t.Fatalf("%d watches left open after stop", n)
		}
	})
}

func TestReflectorPagination(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			src.Add(testPodNamed(n))
		}
		store := &recordingStore{}
		r := newTestReflector(src, store, ReflectorOptions{})
		r.WatchListPageSize = 2
		stop := runReflector(t, r)
		equalLines(t, "calls", src.CallStrings(), []string{
			`list rv="0" limit=2`,
			`list rv="" limit=2 continue="0:2"`,
			`list rv="" limit=2 continue="0:4"`,
			`watch rv="5" bookmarks`,
		})
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1 b@2 c@3 d@4 e@5] rv=5"})
		stop()
	})
}

func TestReflectorExpiredContinueFallsBackToFullList(t *testing.T) {
	listAndWatchOnly(t) // the test is about the list path
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		for _, n := range []string{"a", "b", "c"} {
			src.Add(testPodNamed(n))
		}
		// The continue token expires right after the first page.
		lw := &ListWatch{
			ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
				list, err := src.List(o)
				src.ExpireContinueTokens()
				return list, err
			},
			WatchFunc: src.Watch,
		}
		store := &recordingStore{}
		r := newTestReflector(lw, store, ReflectorOptions{})
		r.WatchListPageSize = 2
		stop := runReflector(t, r)
		equalLines(t, "calls", src.CallStrings(), []string{
			`list rv="0" limit=2`,
			`list rv="" limit=2 continue="0:2"`,
			`list rv="0"`,
			`watch rv="3" bookmarks`,
		})
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1 b@2 c@3] rv=3"})
		stop()
	})
}

func TestReflectorListExpiredRetriesAtLatest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(testPodNamed("a"))
		src.FailList(apierrors.NewResourceExpired("too old"))
		store := &recordingStore{}
		stop := runReflector(t, newTestReflector(src, store, ReflectorOptions{}))
		equalLines(t, "calls", src.CallStrings(), []string{`list rv="0" limit=500`, `list rv="" limit=500`, `watch rv="1" bookmarks`})
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1] rv=1"})
		stop()
	})
}

func TestReflectorRelistsOn410DuringWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(testPodNamed("a"))
		store := &recordingStore{}
		var handled []error
		r := newTestReflector(src, store, ReflectorOptions{})
		r.setWatchErrorHandler(func(_ context.Context, _ *Reflector, err error) { handled = append(handled, err) })
		stop := runReflector(t, r)
		src.Add(testPodNamed("b"))
		src.SendWatchError(apierrors.NewResourceExpired("too old resource version"))
		synctest.Wait()
		// The watch ended; the relist waits for the backoff (800ms plus
		// jitter of up to 100%).
		equalLines(t, "calls before backoff", src.CallStrings(), []string{`list rv="0" limit=500`, `watch rv="1" bookmarks`})
		time.Sleep(1600 * time.Millisecond)
		synctest.Wait()
		// A relist at a specific RV is not paged, so the watch cache can
		// serve it.
		equalLines(t, "calls", src.CallStrings(), []string{
			`list rv="0" limit=500`, `watch rv="1" bookmarks`, `list rv="2"`, `watch rv="2" bookmarks`,
		})
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1] rv=1", "add b@2", "replace [a@1 b@2] rv=2"})
		if len(handled) != 0 {
			t.Fatalf("a 410 during watch is not a ListAndWatch error, handler got %v", handled)
		}
		stop()
	})
}

func TestReflectorRewatchesWithoutListAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(testPodNamed("a"))
		store := &recordingStore{}
		stop := runReflector(t, newTestReflector(src, store, ReflectorOptions{}))
		src.Add(testPodNamed("b"))
		synctest.Wait()
		src.CloseWatches()
		synctest.Wait()
		equalLines(t, "calls", src.CallStrings(), []string{`list rv="0" limit=500`, `watch rv="1" bookmarks`, `watch rv="2" bookmarks`})
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1] rv=1", "add b@2"})
		stop()
	})
}

func TestReflectorVeryShortWatchRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		store := &recordingStore{}
		stop := runReflector(t, newTestReflector(src, store, ReflectorOptions{}))
		src.CloseWatches() // within a second, no events
		synctest.Wait()
		time.Sleep(1600 * time.Millisecond)
		synctest.Wait()
		equalLines(t, "calls", src.CallStrings(), []string{
			`list rv="0" limit=500`, `watch rv="0" bookmarks`, `list rv="0" limit=500`, `watch rv="0" bookmarks`,
		})
		stop()
	})
}

func TestReflectorListErrorsBackOff(t *testing.T) {
	listAndWatchOnly(t) // the test is about the list path
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		errs := []error{errors.New("e1"), errors.New("e2"), errors.New("e3"), errors.New("e4")}
		src.FailList(errs...)
		var listedAt []time.Duration
		start := time.Now()
		lw := &ListWatch{
			ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
				listedAt = append(listedAt, time.Since(start))
				return src.List(o)
			},
			WatchFunc: src.Watch,
		}
		var handled []string
		r := newTestReflector(lw, &recordingStore{}, ReflectorOptions{
			Backoff: &wait.Backoff{Duration: 800 * time.Millisecond, Factor: 2, Cap: 30 * time.Second, Steps: 38},
		})
		r.setWatchErrorHandler(func(_ context.Context, got *Reflector, err error) {
			if got != r {
				t.Errorf("handler got reflector %p, want %p", got, r)
			}
			handled = append(handled, err.Error())
		})
		stop := runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		want := []time.Duration{0, 800 * time.Millisecond, 2400 * time.Millisecond, 5600 * time.Millisecond, 12 * time.Second}
		if len(listedAt) != len(want) {
			t.Fatalf("lists at %v, want %v", listedAt, want)
		}
		for i := range want {
			if listedAt[i] != want[i] {
				t.Fatalf("lists at %v, want %v", listedAt, want)
			}
		}
		equalLines(t, "handled", handled, []string{
			"failed to list *v1.Pod: e1", "failed to list *v1.Pod: e2", "failed to list *v1.Pod: e3", "failed to list *v1.Pod: e4",
		})
		stop()
	})
}

func TestReflectorDefaultBackoffHasJitter(t *testing.T) {
	listAndWatchOnly(t) // the test is about the list path
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.FailList(errors.New("e1"), errors.New("e2"), errors.New("e3"))
		var listedAt []time.Time
		lw := &ListWatch{
			ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
				listedAt = append(listedAt, time.Now())
				return src.List(o)
			},
			WatchFunc: src.Watch,
		}
		r := newTestReflector(lw, &recordingStore{}, ReflectorOptions{})
		r.setWatchErrorHandler(func(context.Context, *Reflector, error) {})
		stop := runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		if len(listedAt) != 4 {
			t.Fatalf("%d lists, want 4", len(listedAt))
		}
		base := 800 * time.Millisecond
		for i := 1; i < len(listedAt); i++ {
			gap := listedAt[i].Sub(listedAt[i-1])
			if gap < base || gap >= 2*base {
				t.Fatalf("gap %d = %v, want in [%v, %v)", i, gap, base, 2*base)
			}
			base *= 2
		}
		stop()
	})
}

func TestReflectorRetriableWatchErrorRewatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(testPodNamed("a"))
		src.FailWatch(apierrors.NewTooManyRequests("slow down", 1))
		stop := runReflector(t, newTestReflector(src, &recordingStore{}, ReflectorOptions{}))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		equalLines(t, "calls", src.CallStrings(), []string{`list rv="0" limit=500`, `watch rv="1" bookmarks`, `watch rv="1" bookmarks`})
		stop()
	})
}

func TestReflectorOtherWatchErrorIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		boom := errors.New("boom")
		src.FailWatch(boom)
		var handled []error
		r := newTestReflector(src, &recordingStore{}, ReflectorOptions{})
		r.setWatchErrorHandler(func(_ context.Context, _ *Reflector, err error) { handled = append(handled, err) })
		stop := runReflector(t, r)
		if len(handled) != 1 || !errors.Is(handled[0], boom) {
			t.Fatalf("handler got %v, want [boom]", handled)
		}
		time.Sleep(1600 * time.Millisecond)
		synctest.Wait()
		equalLines(t, "calls", src.CallStrings(), []string{`list rv="0" limit=500`, `watch rv="0" bookmarks`, `list rv="0" limit=500`, `watch rv="0" bookmarks`})
		stop()
	})
}

func TestReflectorBookmarksAndTypeMismatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(testPodNamed("a"))
		store := &bookmarkStore{}
		r := newTestReflector(src, store, ReflectorOptions{})
		stop := runReflector(t, r)
		// A Service on a Pod watch is dropped, and its RV not recorded.
		src.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "svc"}})
		synctest.Wait()
		if got := r.LastSyncResourceVersion(); got != "1" {
			t.Fatalf("LastSyncResourceVersion = %q after a dropped event, want 1", got)
		}
		src.SendBookmark()
		synctest.Wait()
		equalLines(t, "store", store.takeOps(), []string{"replace [a@1] rv=1", "bookmark 2"})
		if got := r.LastSyncResourceVersion(); got != "2" {
			t.Fatalf("LastSyncResourceVersion = %q after bookmark, want 2", got)
		}
		stop()
	})
}

func TestReflectorResync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		store := &recordingStore{}
		r := newTestReflector(src, store, ReflectorOptions{ResyncPeriod: 30 * time.Second})
		var resync atomic.Bool
		resync.Store(true)
		r.setShouldResync(resync.Load)
		stop := runReflector(t, r)
		store.takeOps()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		equalLines(t, "after one period", store.takeOps(), []string{"resync"})
		resync.Store(false)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		equalLines(t, "ShouldResync false", store.takeOps(), nil)

		// A failing Resync ends the watch; the reflector relists.
		resync.Store(true)
		store.setResyncErr(errors.New("resync failed"))
		src.ResetCalls()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		time.Sleep(1600 * time.Millisecond)
		synctest.Wait()
		equalLines(t, "calls after resync error", src.CallStrings(), []string{`list rv="0" limit=500`, `watch rv="0" bookmarks`})
		stop()
	})
}

func TestReflectorStopsPromptly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		stopCh := make(chan struct{})
		done := make(chan struct{})
		r := newTestReflector(src, &recordingStore{}, ReflectorOptions{ResyncPeriod: time.Minute})
		go func() {
			defer close(done)
			r.Run(stopCh)
		}()
		synctest.Wait()
		close(stopCh)
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("Run did not return after stopCh closed")
		}
		if n := src.OpenWatches(); n != 0 {
			t.Fatalf("%d watches left open", n)
		}
	})
}

func TestListAndWatchReturnsListError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		boom := errors.New("boom")
		src.FailList(boom)
		r := newTestReflector(src, &recordingStore{}, ReflectorOptions{})
		if err := r.ListAndWatch(make(chan struct{})); !errors.Is(err, boom) {
			t.Fatalf("ListAndWatch = %v, want boom", err)
		}
	})
}

func TestReflectorNamesAndOptions(t *testing.T) {
	r := NewReflector(&ListWatch{}, &corev1.Pod{}, &recordingStore{}, 0)
	if r.Name() == "" || r.Name() == "????" {
		t.Fatalf("default name %q", r.Name())
	}
	if got := r.TypeDescription(); got != "*v1.Pod" {
		t.Fatalf("TypeDescription = %q", got)
	}
	if got := NewNamedReflector("n", &ListWatch{}, nil, &recordingStore{}, 0); got.Name() != "n" || got.TypeDescription() != "<unspecified>" {
		t.Fatalf("named reflector: %q %q", got.Name(), got.TypeDescription())
	}
	long := NewReflectorWithOptions(&ListWatch{}, nil, &recordingStore{}, ReflectorOptions{MinWatchTimeout: 20 * time.Minute, TypeDescription: "pods"})
	if long.minWatchTimeout != 20*time.Minute || long.maxWatchTimeout != 40*time.Minute || long.TypeDescription() != "pods" {
		t.Fatalf("watch timeouts %v-%v %q", long.minWatchTimeout, long.maxWatchTimeout, long.TypeDescription())
	}
	short := NewReflectorWithOptions(&ListWatch{}, nil, &recordingStore{}, ReflectorOptions{MinWatchTimeout: time.Minute})
	if short.minWatchTimeout != 5*time.Minute || short.maxWatchTimeout != 10*time.Minute {
		t.Fatalf("a minimum under 5m must be ignored, got %v-%v", short.minWatchTimeout, short.maxWatchTimeout)
	}
}

func TestVeryShortWatchErrorMessage(t *testing.T) {
	err := error(&VeryShortWatchError{Name: "r"})
	want := "very short watch: r: Unexpected watch close - watch lasted less than a second and no items received"
	if err.Error() != want {
		t.Fatalf("got %q", err.Error())
	}
}

// keep the watch import used by helpers in other test files.
var _ watch.Interface = watch.NewFake()

// A watch from RV "0" (an empty list) starts with synthetic adds: client-go
// v0.36 and later keep LastSyncResourceVersion until another event, v0.35
// moves it with every event. The reflector does what the linked release
// does.
func TestReflectorInitialAddsMoveRVPerRelease(t *testing.T) {
	for _, tc := range []struct {
		hold          bool
		afterAdd, end string
	}{{hold: true, afterAdd: "0", end: "2"}, {hold: false, afterAdd: "1", end: "2"}} {
		synctest.Test(t, func(t *testing.T) {
			src := fakelw.New(&corev1.Pod{})
			src.SetWatchListSupported(false)
			store := &recordingStore{}
			r := newTestReflector(src, store, ReflectorOptions{})
			r.holdInitialRV = tc.hold
			stop := runReflector(t, r)
			defer stop()
			equalLines(t, "calls", src.CallStrings(), []string{`list rv="0" limit=500`, `watch rv="0" bookmarks`})
			src.Add(testPodNamed("a"))
			synctest.Wait()
			if got := r.LastSyncResourceVersion(); got != tc.afterAdd {
				t.Errorf("hold=%t: LastSyncResourceVersion = %q after an add, want %q", tc.hold, got, tc.afterAdd)
			}
			src.Modify(testPodNamed("a"))
			synctest.Wait()
			if got := r.LastSyncResourceVersion(); got != tc.end {
				t.Errorf("hold=%t: LastSyncResourceVersion = %q after an update, want %q", tc.hold, got, tc.end)
			}
		})
	}
}
