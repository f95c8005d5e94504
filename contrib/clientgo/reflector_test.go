package clientgo

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/informer"
)

func TestReflectorViewDescribesFanoutReflector(t *testing.T) {
	var v reflectorViews
	store := informer.NewStore(informer.MetaNamespaceKeyFunc)
	r := informer.NewNamedReflector("named", newFakeSource(), &corev1.ConfigMap{}, store, 0)
	view := v.of(r)
	require.NotNil(t, view)
	require.Equal(t, "named", view.Name())
	require.Equal(t, "*v1.ConfigMap", view.TypeDescription())
	require.Same(t, view, v.of(r), "one view per fanout reflector")

	next := informer.NewReflectorWithOptions(newFakeSource(), &corev1.Secret{}, store, informer.ReflectorOptions{Name: "next", TypeDescription: "secrets"})
	require.Equal(t, "next", v.of(next).Name())
	require.Equal(t, "secrets", v.of(next).TypeDescription())
	require.Nil(t, v.of(nil))
}

// failingInformer returns an informer whose every list fails, and its source.
func failingInformer() (cache.SharedIndexInformer, *fakeSource) {
	src := newFakeSource()
	src.setListError(errors.New("list failed"))
	return NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil), src
}

func TestWatchErrorHandlersGetAUsableReflector(t *testing.T) {
	// client-go's default handler goes through utilruntime's global error
	// handlers, whose rate limiter remembers the wall-clock time of the
	// last error any earlier test reported: inside the bubble, whose clock
	// starts in 2000, it would sleep for decades. This test needs the
	// handler to run and return, not that limiter.
	saved := utilruntime.ErrorHandlers
	utilruntime.ErrorHandlers = nil
	t.Cleanup(func() { utilruntime.ErrorHandlers = saved })
	synctest.Test(t, func(t *testing.T) {
		// fanout's own handler sees the name client-go's must see.
		own, _ := failingInformer()
		fanoutNames := make(chan string, 1)
		f, _ := FanoutInformer(own)
		require.NoError(t, f.SetWatchErrorHandler(func(r *informer.Reflector, _ error) { send(fanoutNames, r.Name()) }))

		// client-go's default handler reads the reflector's name and type:
		// with a nil reflector it would crash the test binary.
		withDefault, defaultSrc := failingInformer()
		require.NoError(t, withDefault.SetWatchErrorHandlerWithContext(cache.DefaultWatchErrorHandler))

		withContext, _ := failingInformer()
		fromContext := make(chan *cache.Reflector, 1)
		require.NoError(t, withContext.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
			cache.DefaultWatchErrorHandler(ctx, r, err)
			send(fromContext, r)
		}))

		custom, _ := failingInformer()
		fromCustom := make(chan *cache.Reflector, 1)
		require.NoError(t, custom.SetWatchErrorHandler(func(r *cache.Reflector, _ error) { send(fromCustom, r) }))

		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		for _, inf := range []cache.SharedIndexInformer{own, withDefault, withContext, custom} {
			wg.Go(func() { inf.RunWithContext(klog.NewContext(ctx, logr.Discard())) })
		}

		fanoutName := <-fanoutNames
		require.NotEmpty(t, fanoutName)
		for name, ch := range map[string]chan *cache.Reflector{"with context": fromContext, "custom": fromCustom} {
			r := <-ch
			require.NotNil(t, r, name)
			require.Equal(t, fanoutName, r.Name(), name)
			require.Equal(t, "*v1.ConfigMap", r.TypeDescription(), name)
		}
		// The default handler has had time to return; the reflectors
		// back off for 800 ms or more.
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		lists, _ := defaultSrc.counts()
		require.Equal(t, 1, lists, "the default handler returned")
	})
}

// send sends v on ch unless ch is full: only the first call counts.
func send[T any](ch chan T, v T) {
	select {
	case ch <- v:
	default:
	}
}
