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
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/listers"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/informer"

	"github.com/kfanout/fanout/internal/testutil"
)

// The adapter must compile as client-go's interface.
var _ cache.SharedIndexInformer = NewSharedIndexInformer(nil, &corev1.ConfigMap{}, 0, cache.Indexers{})

// callLog records handler calls as strings.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, s)
}

func (l *callLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

// handlerFor returns a client-go handler that records into l.
func (l *callLog) handlerFor() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { l.add(describeAdd(obj, initial)) },
		UpdateFunc: func(o, n any) { l.add(describeUpdate(o, n)) },
		DeleteFunc: func(obj any) { l.add(describeDelete(obj)) },
	}
}

// runInformer runs inf in the current bubble and returns a stop function
// that waits until Run has returned.
func runInformer(inf cache.SharedIndexInformer) (stop func()) {
	return testutil.Start(klog.NewContext(context.Background(), logr.Discard()), inf.RunWithContext)
}

func TestFanoutInformerRecognisesOnlyFanout(t *testing.T) {
	inf := NewSharedIndexInformer(newFakeSource(), &corev1.ConfigMap{}, 0, nil)
	f, ok := FanoutInformer(inf)
	require.True(t, ok)
	require.NotNil(t, f)
	_, ok = FanoutInformer(cache.NewSharedIndexInformer(newFakeSource(), &corev1.ConfigMap{}, 0, nil))
	require.False(t, ok)
	_, ok = FanoutInformer(nil)
	require.False(t, ok)
	require.Nil(t, Wrap(nil))
}

func TestAdapterSyncsDeliversAndServesListers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource()
		src.put("a", "x", "1", false)
		src.put("b", "y", "1", false)
		inf := NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		var log callLog
		reg, err := inf.AddEventHandler(log.handlerFor())
		require.NoError(t, err)
		stop := runInformer(inf)
		defer stop()

		stopCh := make(chan struct{})
		defer close(stopCh)
		require.True(t, cache.WaitForCacheSync(stopCh, inf.HasSynced, reg.HasSynced))
		requireCheckersDone(t, inf, reg, inf.GetController())
		synctest.Wait()
		require.Equal(t, []string{"add a/x rv=1 initial=true", "add b/y rv=2 initial=true"}, log.get())
		require.Equal(t, "2", inf.LastSyncResourceVersion())
		require.True(t, inf.GetController().HasSynced())

		src.put("a", "x", "2", false)
		src.remove("b", "y", false)
		synctest.Wait()
		require.Equal(t, []string{"add a/x rv=1 initial=true", "add b/y rv=2 initial=true", "update a/x 1->3", "delete b/y rv=4"}, log.get())
		require.Equal(t, []string{"a/x"}, inf.GetStore().ListKeys())

		// Generated listers, the generic lister and the namespace index.
		cm, err := corev1listers.NewConfigMapLister(inf.GetIndexer()).ConfigMaps("a").Get("x")
		require.NoError(t, err)
		require.Equal(t, "3", cm.ResourceVersion)
		all, err := listers.New[*corev1.ConfigMap](inf.GetIndexer(), configMaps).List(labels.Everything())
		require.NoError(t, err)
		require.Len(t, all, 1)
		byNS, err := inf.GetIndexer().ByIndex(cache.NamespaceIndex, "a")
		require.NoError(t, err)
		require.Len(t, byNS, 1)

		// AddIndexers works while running and indexes what is cached.
		require.NoError(t, inf.AddIndexers(cache.Indexers{"data": func(obj any) ([]string, error) {
			return []string{obj.(*corev1.ConfigMap).Data["v"]}, nil
		}}))
		keys, err := inf.GetIndexer().IndexKeys("data", "2")
		require.NoError(t, err)
		require.Equal(t, []string{"a/x"}, keys)
		require.Contains(t, inf.GetIndexer().GetIndexers(), "data")
		require.False(t, inf.IsStopped())
		stop()
		require.True(t, inf.IsStopped())
	})
}

func TestIndexerAdapterServesGeneratedListers(t *testing.T) {
	idx := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})
	for _, name := range []string{"p", "q"} {
		require.NoError(t, idx.Add(&corev1.Pod{ObjectMeta: metav1ObjectMeta("ns", name)}))
	}
	require.NoError(t, idx.Add(&corev1.Pod{ObjectMeta: metav1ObjectMeta("other", "r")}))
	lister := corev1listers.NewPodLister(Indexer(idx))
	pods, err := lister.Pods("ns").List(labels.Everything())
	require.NoError(t, err)
	require.Len(t, pods, 2)
	_, err = lister.Pods("ns").Get("r")
	require.Error(t, err)
	typed, err := listers.New[*corev1.Pod](Indexer(idx), corev1.Resource("pods")).List(labels.Everything())
	require.NoError(t, err)
	require.Len(t, typed, 3)
	require.Nil(t, Indexer(nil))
	require.Nil(t, FromClientGoIndexers(nil))
	require.Nil(t, ToClientGoIndexers(nil))
}

func TestShutDownEventHandlerStopsDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource()
		src.put("a", "x", "1", false)
		inf := NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil)
		var kept, removed callLog
		_, err := inf.AddEventHandler(kept.handlerFor())
		require.NoError(t, err)
		reg, err := inf.AddEventHandler(removed.handlerFor())
		require.NoError(t, err)
		stop := runInformer(inf)
		defer stop()
		synctest.Wait()
		// cache.ShutDownEventHandler (client-go v0.36+) does this.
		require.NoError(t, inf.RemoveEventHandler(reg))
		<-reg.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan()
		src.put("a", "y", "1", false)
		synctest.Wait()
		require.Equal(t, []string{"add a/x rv=1 initial=true"}, removed.get())
		require.Equal(t, []string{"add a/x rv=1 initial=true", "add a/y rv=2 initial=false"}, kept.get())
		// A late handler gets the cache replayed as initial adds.
		var late callLog
		_, err = inf.AddEventHandlerWithResyncPeriod(late.handlerFor(), 0)
		require.NoError(t, err)
		synctest.Wait()
		require.ElementsMatch(t, []string{"add a/x rv=1 initial=true", "add a/y rv=2 initial=true"}, late.get())
	})
}

func TestRemoveEventHandlerRejectsForeignAndNil(t *testing.T) {
	inf := NewSharedIndexInformer(newFakeSource(), &corev1.ConfigMap{}, 0, nil)
	require.Error(t, inf.RemoveEventHandler(nil))
	_, err := inf.AddEventHandler(nil)
	require.Error(t, err)
	var nilFuncs *cache.ResourceEventHandlerFuncs
	_, err = inf.AddEventHandlerWithOptions(nilFuncs, cache.HandlerOptions{})
	require.Error(t, err)
}

func TestAdapterHandsClientGoTombstones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource()
		src.put("a", "x", "1", false)
		src.put("a", "y", "1", false)
		inf := NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil)
		var got []any
		var mu sync.Mutex
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, obj)
		}})
		require.NoError(t, err)
		stop := runInformer(inf)
		defer stop()
		synctest.Wait()
		src.expire()
		synctest.Wait()
		src.remove("a", "x", true)
		time.Sleep(5 * time.Second) // past the reflector's backoff: relist
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, got, 1)
		tomb, ok := got[0].(cache.DeletedFinalStateUnknown)
		require.True(t, ok, "got %T", got[0])
		require.Equal(t, "a/x", tomb.Key)
		require.Equal(t, "1", tomb.Obj.(*corev1.ConfigMap).ResourceVersion)
	})
}

func TestAdapterWatchErrorHandlerAndTransform(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource()
		src.put("a", "x", "1", false)
		failure := errors.New("list failed")
		src.setListError(failure)
		inf := NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil)
		type call struct {
			r   *cache.Reflector
			err error
		}
		calls := make(chan call, 10)
		require.NoError(t, inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) {
			calls <- call{r, err}
		}))
		require.NoError(t, inf.SetTransform(func(obj any) (any, error) {
			cm := obj.(*corev1.ConfigMap).DeepCopy()
			cm.Labels = map[string]string{"t": "1"}
			return cm, nil
		}))
		stop := runInformer(inf)
		defer stop()
		c := <-calls
		require.NotNil(t, c.r)
		require.Equal(t, "*v1.ConfigMap", c.r.TypeDescription())
		require.ErrorIs(t, c.err, failure)
		require.False(t, inf.HasSynced())
		require.Error(t, inf.SetTransform(nil))
		require.Error(t, inf.SetWatchErrorHandler(func(*cache.Reflector, error) {}))

		src.setListError(nil)
		requireCheckersDone(t, inf)
		obj, ok, err := inf.GetStore().GetByKey("a/x")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "1", obj.(*corev1.ConfigMap).Labels["t"])
	})
}
