package informer

import (
	"context"
	"errors"
	"sync"
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

	"github.com/kfanout/fanout/internal/fakelw"
)

// gate is a handler that records the resourceVersions it was called with
// and holds every call until released.
type gate struct {
	mu      sync.Mutex
	seen    []string
	release chan struct{}
}

func (g *gate) rec(obj any) {
	g.mu.Lock()
	g.seen = append(g.seen, obj.(*corev1.Pod).Name+"@"+obj.(*corev1.Pod).ResourceVersion)
	g.mu.Unlock()
	<-g.release
}

func (g *gate) OnAdd(obj any, _ bool) { g.rec(obj) }
func (g *gate) OnUpdate(_, obj any)   { g.rec(obj) }
func (g *gate) OnDelete(obj any)      { g.rec(obj) }
func (g *gate) calls() int            { g.mu.Lock(); defer g.mu.Unlock(); return len(g.seen) }
func (g *gate) let(n int) {
	for range n {
		g.release <- struct{}{}
	}
}

// newGate returns a gate whose calls are all let through when the test
// ends (before the informer is stopped).
func newGate(t *testing.T) *gate {
	g := &gate{release: make(chan struct{}, 1000)}
	t.Cleanup(func() { close(g.release) })
	return g
}

// settle lets the waits' poll timers fire and everything run that can.
func settle() {
	time.Sleep(10 * time.Millisecond)
	synctest.Wait()
}

// waitAsync runs reg's WaitForResourceVersion on a goroutine.
func waitAsync(ctx context.Context, reg ResourceEventHandlerRegistration, rv string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- reg.(FanoutRegistration).WaitForResourceVersion(ctx, rv) }()
	return done
}

// returnedYet reports whether done has a result (inside a bubble, after
// synctest.Wait).
func returnedYet(done <-chan error) bool {
	select {
	case err := <-done:
		if err != nil {
			panic(err)
		}
		return true
	default:
		return false
	}
}

// TestRegistrationWaitForResourceVersion: for each engine, the wait on a
// registration ends only once that handler has returned from the change
// at the resourceVersion, although the cache (and a faster handler) got
// there long before; a bookmark past the last change, and a relist, end
// it once the handler has caught up with the changes before.
func TestRegistrationWaitForResourceVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts HandlerOptions
		eng  ListenerEngine
	}{
		{name: "direct"},
		{name: "classic", eng: EngineClassic},
		{name: "coalesce", opts: HandlerOptions{Overflow: OverflowCoalesce, MaxPending: 1}},
		{name: "block", opts: HandlerOptions{Overflow: OverflowBlock, MaxPending: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := fakelw.New(&corev1.Pod{})
				src.Add(siPod("a"))
				inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, SharedIndexInformerOptions{ListenerEngine: tc.eng}).(FanoutInformer)
				slow := newGate(t)
				reg, err := inf.AddEventHandlerWithOptions(slow, tc.opts)
				require.NoError(t, err)
				fast, err := inf.AddEventHandler(ResourceEventHandlerFuncs{})
				require.NoError(t, err)
				runInformer(t, inf)
				synctest.Wait()
				require.Equal(t, 1, slow.calls(), "the initial add is in the handler")

				var last string
				for _, name := range []string{"b", "c", "d"} {
					last = src.Add(siPod(name)).(*corev1.Pod).ResourceVersion
				}
				require.NoError(t, inf.WaitForResourceVersion(t.Context(), last), "the cache has it")
				require.NoError(t, fast.(FanoutRegistration).WaitForResourceVersion(t.Context(), last), "the fast handler has it")
				done := waitAsync(t.Context(), reg, last)
				settle()
				require.False(t, returnedYet(done), "returned while the handler is still on its first call")
				slow.let(3) // a, b, c: d is in the handler, not returned
				settle()
				require.False(t, returnedYet(done), "returned before the handler returned from the change at %s", last)
				slow.let(1)
				settle()
				require.True(t, returnedYet(done))

			})
		})
	}
}

// TestRegistrationWaitBookmarkOnly: a resourceVersion that only a
// bookmark carries (another resource's, say) is reached once the handler
// is done with the changes before it, without any further change.
func TestRegistrationWaitBookmarkOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fw := watch.NewFake()
		lw := noWatchList(&ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
		})
		inf := NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil).(FanoutInformer)
		slow := newGate(t)
		reg, err := inf.AddEventHandler(slow)
		require.NoError(t, err)
		runInformer(t, inf)
		synctest.Wait()
		done := waitAsync(t.Context(), reg, "15")
		fw.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "12"}})
		fw.Action(watch.Bookmark, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "20"}})
		require.NoError(t, inf.WaitForResourceVersion(t.Context(), "15"), "the bookmark brought the cache to 20")
		settle()
		require.False(t, returnedYet(done), "returned while the handler is in the change at 12")
		slow.let(1)
		settle()
		require.True(t, returnedYet(done))
	})
}

// TestRegistrationWaitAfterRelist: after a 410 and a relist, the wait
// for a write made meanwhile ends once the handler has returned from the
// relist's notifications.
func TestRegistrationWaitAfterRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		slow := newGate(t)
		reg, err := inf.AddEventHandler(slow)
		require.NoError(t, err)
		runInformer(t, inf)
		slow.let(1)
		synctest.Wait()
		time.Sleep(5 * time.Second) // past the very-short-watch limit
		src.FailWatch(apierrors.NewResourceExpired("too old resource version"))
		src.CloseWatches()
		written := src.Add(siPod("b")).(*corev1.Pod).ResourceVersion
		require.NoError(t, inf.WaitForResourceVersion(t.Context(), written))
		done := waitAsync(t.Context(), reg, written)
		settle()
		require.False(t, returnedYet(done), "returned before the handler saw the relist")
		slow.let(100)
		settle()
		require.True(t, returnedYet(done))
		assert.Contains(t, slow.seen, "b@"+written)
	})
}

// TestRegistrationWaitErrors: not a resourceVersion, Workers > 1, the
// context ending and the registration's removal are each a clear error.
func TestRegistrationWaitErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil).(FanoutInformer)
		slow := newGate(t)
		reg, err := inf.AddEventHandler(slow)
		require.NoError(t, err)
		fr := reg.(FanoutRegistration)
		for _, bad := range []string{"", "0", "abc", "007"} {
			assert.ErrorIs(t, fr.WaitForResourceVersion(t.Context(), bad), ErrInvalidResourceVersion, "%q", bad)
		}
		par, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{}, HandlerOptions{Workers: 4})
		require.NoError(t, err)
		assert.ErrorIs(t, par.(FanoutRegistration).WaitForResourceVersion(t.Context(), "1"), errors.ErrUnsupported)

		runInformer(t, inf)
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err = fr.WaitForResourceVersion(ctx, "1")
		cancel()
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Contains(t, err.Error(), "waiting for handler")

		// b waits behind a when the handler is removed: it is dropped,
		// so the handler never reaches b's resourceVersion.
		b := src.Add(siPod("b")).(*corev1.Pod).ResourceVersion
		done := waitAsync(t.Context(), reg, b)
		settle()
		require.NoError(t, inf.RemoveEventHandler(reg))
		slow.let(1)
		settle()
		select {
		case err := <-done:
			assert.ErrorContains(t, err, "removed")
		default:
			t.Fatal("the wait did not end with the removal")
		}
	})
}
