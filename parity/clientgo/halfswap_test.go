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
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

// scriptedAPI answers a fake clientset's ConfigMap lists from a script (the
// last answer repeats) and hands out watches the test drives.
type scriptedAPI struct {
	mu      sync.Mutex // guards the fields below
	lists   []*corev1.ConfigMapList
	watches []*watch.FakeWatcher
}

// newScriptedClientset returns a fake clientset whose ConfigMap lists
// return lists in turn.
func newScriptedClientset(lists ...*corev1.ConfigMapList) (*fake.Clientset, *scriptedAPI) {
	api := &scriptedAPI{lists: lists}
	cs := fake.NewClientset()
	cs.PrependReactor("list", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		api.mu.Lock()
		defer api.mu.Unlock()
		l := api.lists[0]
		if len(api.lists) > 1 {
			api.lists = api.lists[1:]
		}
		return true, l.DeepCopy(), nil
	})
	cs.PrependWatchReactor("configmaps", func(clienttesting.Action) (bool, watch.Interface, error) {
		api.mu.Lock()
		defer api.mu.Unlock()
		w := watch.NewFakeWithChanSize(10, false)
		api.watches = append(api.watches, w)
		return true, w, nil
	})
	return cs, api
}

// watch returns the i-th watch opened.
func (a *scriptedAPI) watch(i int) *watch.FakeWatcher {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.watches[i]
}

// configMap returns a ConfigMap in namespace ns.
func configMap(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// configMapList returns a list at rv.
func configMapList(rv string, items ...*corev1.ConfigMap) *corev1.ConfigMapList {
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, cm := range items {
		l.Items = append(l.Items, *cm)
	}
	return l
}

// describeDeleteWithFanout describes a delete as a controller that took
// fanout's tools/cache helpers sees it.
func describeDeleteWithFanout(obj any) string {
	last := obj
	tomb, isTomb := obj.(informer.DeletedFinalStateUnknown)
	if isTomb {
		last = tomb.Obj
	}
	key, err := informer.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		key = "error: " + err.Error()
	}
	name, err := informer.DeletionHandlingObjectToName(obj)
	if err != nil {
		return "name error: " + err.Error()
	}
	rv := "?"
	if cm, ok := last.(*corev1.ConfigMap); ok {
		rv = cm.ResourceVersion
	}
	return fmt.Sprintf("tombstone=%t key=%s name=%s rv=%s", isTomb, key, name, rv)
}

// deleteRecorder records deletes through each of fanout's handler types.
type deleteRecorder struct {
	mu   sync.Mutex // guards seen
	seen map[string][]string
}

func (r *deleteRecorder) add(via, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[via] = append(r.seen[via], s)
}

// handlers returns fanout's handler types, each recording its deletes.
func (r *deleteRecorder) handlers() map[string]informer.ResourceEventHandler {
	record := func(via string) func(any) {
		return func(obj any) { r.add(via, describeDeleteWithFanout(obj)) }
	}
	return map[string]informer.ResourceEventHandler{
		"funcs":          informer.ResourceEventHandlerFuncs{DeleteFunc: record("funcs")},
		"detailed funcs": informer.ResourceEventHandlerDetailedFuncs{DeleteFunc: record("detailed funcs")},
		"filtering": informer.FilteringResourceEventHandler{
			FilterFunc: func(obj any) bool {
				_, err := informer.DeletionHandlingMetaNamespaceKeyFunc(obj)
				return err == nil
			},
			Handler: informer.ResourceEventHandlerFuncs{DeleteFunc: record("filtering")},
		},
	}
}

// TestHalfSwapDeletesReachFanoutHelpers runs one delete and one delete seen
// only by a relist (a tombstone) past handlers built from fanout's
// tools/cache replacement, registered on a client-go informer from
// client-go's factory (only the tools/cache import swapped), on a fanout
// informer, and on a fanout informer seen through client-go's interface.
// Each must give the same key, name, tombstone and last state.
func TestHalfSwapDeletesReachFanoutHelpers(t *testing.T) {
	for _, kind := range []string{"client-go factory", "fanout", "fanout adapted"} {
		t.Run(kind, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cs, api := newScriptedClientset(
					configMapList("1", configMap("a", "1"), configMap("b", "1")),
					configMapList("3"),
				)
				rec := &deleteRecorder{seen: map[string][]string{}}
				ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
				var wg sync.WaitGroup
				defer wg.Wait()
				defer cancel()

				var typed []string
				switch kind {
				case "client-go factory":
					f := k8sinformers.NewSharedInformerFactory(cs, 0)
					inf := f.Core().V1().ConfigMaps().Informer()
					for _, h := range rec.handlers() {
						_, err := inf.AddEventHandler(h)
						require.NoError(t, err)
					}
					f.Start(ctx.Done())
					wg.Go(func() {
						<-ctx.Done()
						f.Shutdown()
					})
				default:
					lw := &informer.ListWatch{
						ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
							return cs.CoreV1().ConfigMaps("").List(ctx, o)
						},
						WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
							return cs.CoreV1().ConfigMaps("").Watch(ctx, o)
						},
					}
					// Marked as the fake clientset's, as client-go's factory does:
					// the fake has no watch-list.
					inf := informer.NewSharedIndexInformer(informer.ToListWatcherWithWatchListSemantics(lw, cs), &corev1.ConfigMap{}, 0, informer.Indexers{})
					_, err := informer.NewTypedSharedIndexInformer[*corev1.ConfigMap](inf).AddTypedEventHandler(
						informer.TypedResourceEventHandlerFuncs[*corev1.ConfigMap]{DeleteFunc: func(d informer.DeletedObject[*corev1.ConfigMap]) {
							rec.add("typed", fmt.Sprintf("tombstone=%t key=%s rv=%s", d.FinalStateUnknown != nil, d.GetKey(), d.OptionalObj.ResourceVersion))
						}})
					require.NoError(t, err)
					typed = []string{"tombstone=false key=ns/a rv=2", "tombstone=true key=ns/b rv=1"}
					adapted := clientgo.Wrap(inf)
					for _, h := range rec.handlers() {
						if kind == "fanout" {
							_, err = inf.AddEventHandler(h)
						} else {
							_, err = adapted.AddEventHandler(h)
						}
						require.NoError(t, err)
					}
					wg.Go(func() { adapted.RunWithContext(ctx) })
				}

				synctest.Wait() // listed a and b, watching
				w := api.watch(0)
				w.Delete(configMap("a", "2"))
				// b goes while the watch is down: only the relist shows it.
				w.Error(&apierrors.NewResourceExpired("too old").ErrStatus)
				time.Sleep(time.Minute) // past the reflector's backoff
				synctest.Wait()

				want := []string{
					"tombstone=false key=ns/a name=ns/a rv=2",
					"tombstone=true key=ns/b name=ns/b rv=1",
				}
				rec.mu.Lock()
				defer rec.mu.Unlock()
				for via := range rec.handlers() {
					require.Equal(t, want, rec.seen[via], via)
				}
				require.Equal(t, typed, rec.seen["typed"])
			})
		})
	}
}

// The tombstone a client-go informer delivers is client-go's own type, which
// every fanout function that takes a deleted object recognises by its shape.
func TestFanoutHelpersRecogniseClientGoTombstone(t *testing.T) {
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/b", Obj: configMap("b", "1")}
	want := informer.DeletedFinalStateUnknown{Key: "ns/b", Obj: tomb.Obj}
	var seen bool
	got, ok := informer.AsDeletedFinalStateUnknown(tomb)
	require.True(t, ok)
	require.Equal(t, want, got)
	require.Equal(t, "tombstone=true key=ns/b name=ns/b rv=1", describeDeleteWithFanout(seenBy(tomb)))

	require.Equal(t, want, seenBy(tomb), "handler adapters hand over fanout's tombstone")

	key, err := informer.DeletionHandlingMetaNamespaceKeyFunc(tomb)
	require.NoError(t, err)
	require.Equal(t, "ns/b", key)

	fifo := informer.NewDeltaFIFOWithOptions(informer.DeltaFIFOOptions{KeyFunction: informer.MetaNamespaceKeyFunc})
	key, err = fifo.KeyOf(tomb)
	require.NoError(t, err)
	require.Equal(t, "ns/b", key)
	require.NoError(t, fifo.Delete(tomb), "DeltaFIFO finds the key")
	rf := informer.NewRealFIFOWithOptions(informer.RealFIFOOptions{KeyFunction: informer.MetaNamespaceKeyFunc, AtomicEvents: true})
	require.NoError(t, rf.Delete(tomb), "RealFIFO finds the key")

	// A typed handler unwraps it into a DeletedObject.
	capture := &handlerCapture{}
	_, err = informer.NewTypedSharedIndexInformer[*corev1.ConfigMap](capture).AddTypedEventHandler(
		informer.TypedResourceEventHandlerFuncs[*corev1.ConfigMap]{DeleteFunc: func(d informer.DeletedObject[*corev1.ConfigMap]) {
			require.NotNil(t, d.FinalStateUnknown)
			require.Equal(t, want, *d.FinalStateUnknown)
			require.Equal(t, "ns/b", d.GetKey())
			require.Same(t, tomb.Obj, d.OptionalObj)
			seen = true
		}})
	require.NoError(t, err)
	seen = false
	capture.handler.OnDelete(tomb)
	require.True(t, seen, "the typed handler was called")

	// client-go's own key function still rejects fanout's tombstone, so the
	// adapter converts it for client-go handlers.
	require.Equal(t, tomb, clientgo.ToClientGoObject(want))
}

// seenBy returns what a fanout ResourceEventHandlerFuncs' DeleteFunc
// receives for obj.
func seenBy(obj any) any {
	var seen any
	informer.ResourceEventHandlerFuncs{DeleteFunc: func(o any) { seen = o }}.OnDelete(obj)
	return seen
}

// handlerCapture is a fanout informer that only keeps the handler it is
// given, so a test can call the handler the typed informer built.
type handlerCapture struct {
	informer.SharedIndexInformer
	handler informer.ResourceEventHandler
}

func (c *handlerCapture) AddEventHandlerWithOptions(h informer.ResourceEventHandler, _ informer.HandlerOptions) (informer.ResourceEventHandlerRegistration, error) {
	c.handler = h
	return nil, nil
}
