package parity

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/contrib/clientgo"
	fcache "github.com/kfanout/fanout/contrib/clientgo/cache"
	fanoutinformers "github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/informer"
)

// keyWithClientGo is a controller helper that stayed on client-go, as
// Kubernetes' controller.KeyFunc does: client-go's deletion-handling key
// function, which knows only client-go's tombstone.
func keyWithClientGo(obj any) string {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return "error: " + err.Error()
	}
	_, tomb := obj.(cache.DeletedFinalStateUnknown)
	return fmt.Sprintf("tombstone=%t key=%s", tomb, key)
}

// clientsetListWatch lists and watches ConfigMaps through cs.
func clientsetListWatch(cs *fake.Clientset) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cs.CoreV1().ConfigMaps("").List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cs.CoreV1().ConfigMaps("").Watch(ctx, o)
		},
	}
}

// runDeletes lists a and b, deletes a on the watch and lets the relist
// find b gone; run starts the informer under test.
func runDeletes(t *testing.T, api *scriptedAPI, run func(context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { run(ctx) })
	synctest.Wait() // listed a and b, watching
	w := api.watch(0)
	w.Delete(configMap("a", "2"))
	w.Error(&apierrors.NewResourceExpired("too old").ErrStatus)
	time.Sleep(time.Minute) // past the reflector's backoff
	synctest.Wait()
}

// TestHalfSwapClientGoKeyFuncGetsRelistTombstone is a half-swapped module:
// its informers come from fanout (the factory of contrib/clientgo/informers,
// or the type-identical cache package), while the helper that keys a
// deleted object stayed on client-go. A deletion noticed only by a relist
// must reach that helper as client-go's tombstone, with its key.
func TestHalfSwapClientGoKeyFuncGetsRelistTombstone(t *testing.T) {
	want := []string{"tombstone=false key=ns/a", "tombstone=true key=ns/b"}
	for _, kind := range []string{"fanout factory", "type-identical NewSharedIndexInformer", "type-identical NewInformerWithOptions"} {
		t.Run(kind, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cs, api := newScriptedClientset(
					configMapList("1", configMap("a", "1"), configMap("b", "1")),
					configMapList("3"),
				)
				var mu sync.Mutex
				var seen []string
				h := cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
					mu.Lock()
					defer mu.Unlock()
					seen = append(seen, keyWithClientGo(obj))
				}}
				var run func(context.Context)
				switch kind {
				case "fanout factory":
					f := fanoutinformers.NewSharedInformerFactory(cs, 0)
					inf := f.Core().V1().ConfigMaps().Informer()
					_, isFanout := clientgo.FanoutInformer(inf)
					require.True(t, isFanout)
					_, err := inf.AddEventHandler(h)
					require.NoError(t, err)
					run = func(ctx context.Context) {
						f.Start(ctx.Done())
						<-ctx.Done()
						f.Shutdown()
					}
				case "type-identical NewSharedIndexInformer":
					inf := fcache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(clientsetListWatch(cs), cs), &corev1.ConfigMap{}, 0, fcache.Indexers{})
					_, err := inf.AddEventHandler(h)
					require.NoError(t, err)
					run = inf.RunWithContext
				default:
					_, ctrl := fcache.NewInformerWithOptions(fcache.InformerOptions{ListerWatcher: cache.ToListWatcherWithWatchListSemantics(clientsetListWatch(cs), cs), ObjectType: &corev1.ConfigMap{}, Handler: h})
					run = ctrl.RunWithContext
				}
				runDeletes(t, api, run)
				mu.Lock()
				defer mu.Unlock()
				require.Equal(t, want, seen)
			})
		})
	}
}

// The standalone informer package hands its handlers fanout's own
// tombstone, as its documentation says: a helper still on client-go cannot
// key it. This is the mix the type-identical package exists for.
func TestStandaloneHandlersGetFanoutTombstone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs, api := newScriptedClientset(
			configMapList("1", configMap("a", "1"), configMap("b", "1")),
			configMapList("3"),
		)
		var mu sync.Mutex
		var seen []any
		inf := informer.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(clientsetListWatch(cs), cs), &corev1.ConfigMap{}, 0, informer.Indexers{})
		_, err := inf.AddEventHandler(informer.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, obj)
		}})
		require.NoError(t, err)
		runDeletes(t, api, inf.RunWithContext)
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, seen, 2)
		require.IsType(t, informer.DeletedFinalStateUnknown{}, seen[1])
		require.Contains(t, keyWithClientGo(seen[1]), "error: ", "client-go's key function does not know fanout's tombstone")
		key, err := informer.DeletionHandlingMetaNamespaceKeyFunc(seen[1])
		require.NoError(t, err)
		require.Equal(t, "ns/b", key)
	})
}
