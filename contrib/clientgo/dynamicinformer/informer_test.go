package dynamicinformer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrtest"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// configMap is a ConfigMap as the dynamic client sees it.
func configMap(ns, name, rv string, lbls map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion(rv)
	u.SetLabels(lbls)
	return u
}

// names lists the namespace/name of objs.
func names(t *testing.T, objs []runtime.Object) []string {
	t.Helper()
	var out []string
	for _, o := range objs {
		k, err := cache.MetaNamespaceKeyFunc(o)
		require.NoError(t, err)
		out = append(out, k)
	}
	return out
}

func TestFilteredFactoryWithFakeClient(t *testing.T) {
	app := map[string]string{"app": "x"}
	client := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{configMaps: "ConfigMapList"},
		configMap("ns-a", "listed", "", app),
		configMap("ns-a", "gone", "", app),
		configMap("ns-a", "unlabelled", "", nil),
		configMap("ns-b", "elsewhere", "", app),
	)
	rec := gvrtest.Record(client)
	f := NewFilteredDynamicSharedInformerFactory(client, 0, "ns-a", func(o *metav1.ListOptions) { o.LabelSelector = "app=x" })

	gi := f.ForResource(configMaps)
	require.Same(t, gi, f.ForResource(configMaps), "ForResource twice")
	_, ok := clientgo.FanoutInformer(gi.Informer())
	require.True(t, ok, "the informer is %T, not fanout's", gi.Informer())

	events := gvrtest.NewEvents(10)
	_, err := gi.Informer().AddEventHandler(events)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	defer f.Shutdown()
	defer cancel()
	f.Start(ctx.Done())
	require.Equal(t, map[schema.GroupVersionResource]bool{configMaps: true}, f.WaitForCacheSync(ctx.Done()))
	require.ElementsMatch(t, []string{"add ns-a/listed initial=true", "add ns-a/gone initial=true"}, events.Next(t, 2))

	<-rec.Watching
	_, err = client.Resource(configMaps).Namespace("ns-a").Create(ctx, configMap("ns-a", "created", "", app), metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, client.Resource(configMaps).Namespace("ns-a").Delete(ctx, "gone", metav1.DeleteOptions{}))
	require.Equal(t, []string{"add ns-a/created initial=false", "delete ns-a/gone"}, events.Next(t, 2))

	require.Equal(t, []string{
		`list configmaps ns="ns-a" labels="app=x"`,
		`watch configmaps ns="ns-a" labels="app=x"`,
	}, rec.Calls())

	all, err := gi.Lister().List(labels.Everything())
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"ns-a/listed", "ns-a/created"}, names(t, all))
	got, err := gi.Lister().ByNamespace("ns-a").Get("created")
	require.NoError(t, err)
	require.Equal(t, "created", got.(*unstructured.Unstructured).GetName())
	_, err = gi.Lister().ByNamespace("ns-a").Get("gone")
	require.Error(t, err)

	cancel()
	f.Shutdown()
	secrets := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	f.ForResource(secrets)
	f.Start(ctx.Done()) // does nothing after Shutdown
	stopped := make(chan struct{})
	close(stopped)
	require.Equal(t, map[schema.GroupVersionResource]bool{configMaps: true}, f.WaitForCacheSync(stopped),
		"only the informer started before Shutdown")
}

func TestFactoryWithRealClient(t *testing.T) {
	path := "/api/v1/namespaces/ns-a/configmaps"
	list := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMapList",
		"metadata": map[string]any{"resourceVersion": "5"},
		"items":    []any{configMap("ns-a", "listed", "5", nil).Object},
	}
	added := map[string]any{"type": "ADDED", "object": configMap("ns-a", "watched", "6", nil).Object}
	srv := gvrtest.NewServer(t, path, list, added)
	defer srv.Close()
	client, err := dynamic.NewForConfigAndClient(&rest.Config{Host: srv.URL()}, srv.HTTPClient())
	require.NoError(t, err)

	f := NewFilteredDynamicSharedInformerFactory(client, 0, "ns-a", func(o *metav1.ListOptions) { o.LabelSelector = "app=x" })
	gi := f.ForResource(configMaps)
	events := gvrtest.NewEvents(10)
	_, err = gi.Informer().AddEventHandler(events)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	defer f.Shutdown()
	defer cancel()
	f.Start(ctx.Done())
	require.Equal(t, map[schema.GroupVersionResource]bool{configMaps: true}, f.WaitForCacheSync(ctx.Done()))
	require.Equal(t, []string{"add ns-a/listed initial=true", "add ns-a/watched initial=false"}, events.Next(t, 2))
	require.Equal(t, []string{
		`list ` + path + ` labelSelector="app=x"`,
		`watch ` + path + ` labelSelector="app=x"`,
	}, srv.Requests())

	all, err := gi.Lister().ByNamespace("ns-a").List(labels.Everything())
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"ns-a/listed", "ns-a/watched"}, names(t, all))
}

func TestNewDynamicSharedInformerFactoryWatchesAllNamespaces(t *testing.T) {
	client := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{configMaps: "ConfigMapList"},
		configMap("ns-a", "one", "", nil), configMap("ns-b", "two", "", nil))
	rec := gvrtest.Record(client)
	f := NewDynamicSharedInformerFactory(client, 0)
	gi := f.ForResource(configMaps)

	ctx, cancel := context.WithCancel(t.Context())
	defer f.Shutdown()
	defer cancel()
	f.Start(ctx.Done())
	require.True(t, f.WaitForCacheSync(ctx.Done())[configMaps])
	<-rec.Watching
	require.Equal(t, []string{`list configmaps ns="" labels=""`, `watch configmaps ns="" labels=""`}, rec.Calls())
	all, err := gi.Lister().List(labels.Everything())
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"ns-a/one", "ns-b/two"}, names(t, all))
	require.Equal(t, []string{cache.NamespaceIndex}, keys(gi.Informer().GetIndexer().GetIndexers()))
}

// keys returns the names of indexers.
func keys(indexers cache.Indexers) []string {
	var out []string
	for k := range indexers {
		out = append(out, k)
	}
	return out
}
