package dynamicinformer

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

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

// fakeClient returns a fake dynamic client that knows ConfigMaps.
func fakeClient(objs ...runtime.Object) *fake.FakeDynamicClient {
	return fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{configMaps: "ConfigMapList"}, objs...)
}

// appX selects the objects the tests' tweak function selects.
func appX(o *metav1.ListOptions) { o.LabelSelector = "app=x" }

func TestFilteredFactoryWithFakeClient(t *testing.T) {
	app := map[string]string{"app": "x"}
	client := fakeClient(
		configMap("ns-a", "listed", "", app),
		configMap("ns-a", "gone", "", app),
		configMap("ns-a", "unlabelled", "", nil),
		configMap("ns-b", "elsewhere", "", app),
	)
	rec := gvrtest.Record(client)
	f := NewFilteredDynamicSharedInformerFactory(client, 0, "ns-a", appX)
	events := gvrtest.NewEvents(10)
	gi := gvrtest.Informer(t, f, configMaps, events)
	ctx := gvrtest.Start(t, f, configMaps)
	require.ElementsMatch(t, []string{"add ns-a/listed initial=true", "add ns-a/gone initial=true"}, events.Next(t, 2))

	<-rec.Watching
	cms := client.Resource(configMaps).Namespace("ns-a")
	_, err := cms.Create(ctx, configMap("ns-a", "created", "", app), metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, cms.Delete(ctx, "gone", metav1.DeleteOptions{}))
	require.Equal(t, []string{"add ns-a/created initial=false", "delete ns-a/gone"}, events.Next(t, 2))

	require.Equal(t, gvrtest.ListAndWatch("configmaps", "ns-a", "app=x"), rec.Calls())
	require.ElementsMatch(t, []string{"ns-a/listed", "ns-a/created"}, gvrtest.Keys(t, gi.Lister(), metav1.NamespaceAll))
	got, err := gi.Lister().ByNamespace("ns-a").Get("created")
	require.NoError(t, err)
	require.Equal(t, "created", got.(*unstructured.Unstructured).GetName())
	_, err = gi.Lister().ByNamespace("ns-a").Get("gone")
	require.Error(t, err)
}

func TestStartAfterShutdownDoesNothing(t *testing.T) {
	f := NewDynamicSharedInformerFactory(fakeClient(), 0)
	f.ForResource(configMaps)
	stopped := make(chan struct{})
	close(stopped)
	f.Start(stopped)
	f.Shutdown()
	f.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"})
	f.Start(stopped)
	require.Equal(t, []schema.GroupVersionResource{configMaps}, synced(f.WaitForCacheSync(stopped)),
		"only the informer started before Shutdown is waited for")
}

// synced lists the resources of a WaitForCacheSync result.
func synced(m map[schema.GroupVersionResource]bool) []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for gvr := range m {
		out = append(out, gvr)
	}
	return out
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
	client, err := dynamic.NewForConfigAndClient(&rest.Config{Host: srv.URL()}, srv.HTTPClient())
	require.NoError(t, err)

	srv.CheckServed(t, NewFilteredDynamicSharedInformerFactory(client, 0, "ns-a", appX), configMaps, path)
}

func TestNewDynamicSharedInformerFactoryWatchesAllNamespaces(t *testing.T) {
	client := fakeClient(configMap("ns-a", "one", "", nil), configMap("ns-b", "two", "", nil))
	rec := gvrtest.Record(client)
	f := NewDynamicSharedInformerFactory(client, 0)
	gi := gvrtest.Informer(t, f, configMaps, nil)
	gvrtest.Start(t, f, configMaps)
	<-rec.Watching
	require.Equal(t, gvrtest.ListAndWatch("configmaps", "", ""), rec.Calls())
	require.ElementsMatch(t, []string{"ns-a/one", "ns-b/two"}, gvrtest.Keys(t, gi.Lister(), metav1.NamespaceAll))
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

func TestRemoveInformer(t *testing.T) {
	client := fakeClient(configMap("ns-a", "one", "", nil))
	f := NewDynamicSharedInformerFactory(client, 0)
	_, ok := f.(InformerRemover)
	require.True(t, ok, "the factory has RemoveInformer")
	gvrtest.CheckRemoveInformer(t, f.(gvrtest.Remover), configMaps, schema.GroupVersionResource{Version: "v1", Resource: "secrets"})
}
