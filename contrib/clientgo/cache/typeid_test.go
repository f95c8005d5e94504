package cache_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	k8scache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/contrib/clientgo"
	fcache "github.com/kfanout/fanout/contrib/clientgo/cache"
	"github.com/kfanout/fanout/informer"
)

// The package's types are client-go's, and what its constructors return
// fits client-go's variables and helpers.
func TestTypesAreClientGos(t *testing.T) {
	require.Equal(t, reflect.TypeFor[k8scache.DeletedFinalStateUnknown](), reflect.TypeFor[fcache.DeletedFinalStateUnknown]())
	require.Equal(t, reflect.TypeFor[k8scache.SharedIndexInformer](), reflect.TypeFor[fcache.SharedIndexInformer]())
	require.Equal(t, reflect.TypeFor[k8scache.Indexers](), reflect.TypeFor[fcache.Indexers]())
	require.Equal(t, reflect.TypeFor[k8scache.HandlerOptions](), reflect.TypeFor[fcache.HandlerOptions]())
	require.Equal(t, k8scache.NamespaceIndex, fcache.NamespaceIndex)
	require.Same(t, k8scache.ErrFIFOClosed, fcache.ErrFIFOClosed)

	// Each value is passed where client-go's own type is declared.
	inf := clientGoInformer(fcache.NewSharedIndexInformer(&relistSource{}, &corev1.ConfigMap{}, 0, fcache.Indexers{}))
	_, isFanout := clientgo.FanoutInformer(inf)
	require.True(t, isFanout, "the informer is fanout's")
	require.NotNil(t, corev1listers.NewConfigMapLister(inf.GetIndexer()))
	ctrl := func(c k8scache.Controller) k8scache.Controller { return c }(inf.GetController())
	require.False(t, ctrl.HasSynced())
	shared := func(s k8scache.SharedInformer) k8scache.SharedInformer { return s }(fcache.NewSharedInformer(&relistSource{}, &corev1.ConfigMap{}, 0))
	_, isIndex := shared.(k8scache.SharedIndexInformer)
	require.True(t, isIndex)

	// Both stores of client-go's NewInformerWithOptions are Indexers, with
	// or without Indexers; so are fanout's, seen through the package.
	for _, indexers := range []k8scache.Indexers{nil, {}} {
		options := k8scache.InformerOptions{ListerWatcher: &relistSource{}, ObjectType: &corev1.ConfigMap{}, Indexers: indexers}
		cgStore, _ := k8scache.NewInformerWithOptions(options)
		_, want := cgStore.(k8scache.Indexer)
		store, _ := fcache.NewInformerWithOptions(options)
		_, got := store.(k8scache.Indexer)
		require.Equal(t, want, got, "store is an Indexer, Indexers %v", indexers)
	}
}

// clientGoInformer takes client-go's own informer type.
func clientGoInformer(inf k8scache.SharedIndexInformer) k8scache.SharedIndexInformer { return inf }

// deleteLog records each delete a handler sees, as a client-go helper sees
// it: the type handed over and client-go's deletion-handling key.
type deleteLog struct {
	mu   sync.Mutex // guards seen
	seen map[string][]string
}

func (l *deleteLog) handler(via string) k8scache.ResourceEventHandlerFuncs {
	return k8scache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		key, err := k8scache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			key = "error: " + err.Error()
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.seen[via] = append(l.seen[via], fmt.Sprintf("%T %s", obj, key))
	}}
}

func (l *deleteLog) get(via string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[via]
}

// wantDeletes is what every handler must see: a watched delete of a, then
// b's, noticed only by the relist, as client-go's own tombstone, which
// client-go's key function accepts.
var wantDeletes = []string{"*v1.ConfigMap ns/a", "cache.DeletedFinalStateUnknown ns/b"}

// runRelist lists a and b, deletes a on the watch, ends the watch and
// relists without b.
func runRelist(t *testing.T, src *relistSource, run func(context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), logr.Discard()))
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { run(ctx) })
	synctest.Wait()
	src.mu.Lock()
	src.watches[0].Delete(configMap("a", "2"))
	src.mu.Unlock()
	src.expireWatch()
	time.Sleep(time.Minute) // past the reflector's backoff
	synctest.Wait()
}

func newRelistSource() *relistSource {
	return &relistSource{lists: []*corev1.ConfigMapList{
		configMapList("1", configMap("a", "1"), configMap("b", "1")),
		configMapList("3"),
	}}
}

func TestSharedInformerHandlersGetClientGoTombstone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newRelistSource()
		log := &deleteLog{seen: map[string][]string{}}
		inf := fcache.NewSharedIndexInformerWithOptions(src, &corev1.ConfigMap{}, k8scache.SharedIndexInformerOptions{
			Indexers: k8scache.Indexers{k8scache.NamespaceIndex: k8scache.MetaNamespaceIndexFunc},
		})
		_, err := inf.AddEventHandler(log.handler("AddEventHandler"))
		require.NoError(t, err)
		_, err = inf.AddEventHandlerWithOptions(log.handler("AddEventHandlerWithOptions"), k8scache.HandlerOptions{})
		require.NoError(t, err)
		reg, err := fcache.AddEventHandlerWithFanoutOptions(inf, log.handler("fanout options"), informer.HandlerOptions{Workers: 2, RecoverPanics: true})
		require.NoError(t, err)

		runRelist(t, src, inf.RunWithContext)

		for _, via := range []string{"AddEventHandler", "AddEventHandlerWithOptions", "fanout options"} {
			require.Equal(t, wantDeletes, log.get(via), via)
		}
		fanoutReg, ok := clientgo.FanoutRegistration(reg)
		require.True(t, ok)
		stats, ok := informer.StatsOf(fanoutReg)
		require.True(t, ok)
		require.Equal(t, uint64(4), stats.Delivered, "two adds, two deletes")
		lister := corev1listers.NewConfigMapLister(inf.GetIndexer())
		all, err := lister.List(labels.Everything())
		require.NoError(t, err)
		require.Empty(t, all)
	})
}

func TestLowLevelInformerHandlersGetClientGoTombstone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newRelistSource()
		log := &deleteLog{seen: map[string][]string{}}
		idx, ctrl := fcache.NewIndexerInformer(src, &corev1.ConfigMap{}, 0, log.handler("NewIndexerInformer"), k8scache.Indexers{})
		require.NotNil(t, corev1listers.NewConfigMapLister(idx))
		runRelist(t, src, ctrl.RunWithContext)
		require.Equal(t, wantDeletes, log.get("NewIndexerInformer"))
		require.Empty(t, idx.ListKeys())
	})
}

func TestAddEventHandlerWithFanoutOptionsRefusesClientGoInformer(t *testing.T) {
	inf := k8scache.NewSharedIndexInformer(&relistSource{}, &corev1.ConfigMap{}, 0, k8scache.Indexers{})
	_, err := fcache.AddEventHandlerWithFanoutOptions(inf, k8scache.ResourceEventHandlerFuncs{}, informer.HandlerOptions{})
	require.Error(t, err)
}
