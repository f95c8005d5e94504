package metadatainformer

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"

	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrtest"
)

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// partial is a Deployment's metadata as the metadata client sees it.
func partial(ns, name, rv string, lbls map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, Labels: lbls},
	}
}

// fakeClient returns a fake metadata client holding objs.
func fakeClient(t *testing.T, objs ...runtime.Object) *fake.FakeMetadataClient {
	s := fake.NewTestScheme()
	require.NoError(t, metav1.AddMetaToScheme(s))
	return fake.NewSimpleMetadataClient(s, objs...)
}

func TestFilteredFactoryWithFakeClient(t *testing.T) {
	app := map[string]string{"app": "x"}
	client := fakeClient(t,
		partial("ns-a", "listed", "", app),
		partial("ns-a", "gone", "", app),
		partial("ns-a", "unlabelled", "", nil),
		partial("ns-b", "elsewhere", "", app),
	)
	rec := gvrtest.Record(client)
	f := NewFilteredSharedInformerFactory(client, 0, "ns-a", func(o *metav1.ListOptions) { o.LabelSelector = "app=x" })
	events := gvrtest.NewEvents(10)
	gi := gvrtest.Informer(t, f, deployments, events)
	ctx := gvrtest.Start(t, f, deployments)
	require.ElementsMatch(t, []string{"add ns-a/listed initial=true", "add ns-a/gone initial=true"}, events.Next(t, 2))

	<-rec.Watching
	ds := client.Resource(deployments).Namespace("ns-a")
	_, err := ds.(fake.MetadataClient).CreateFake(partial("ns-a", "created", "", app), metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, ds.Delete(ctx, "gone", metav1.DeleteOptions{}))
	require.Equal(t, []string{"add ns-a/created initial=false", "delete ns-a/gone"}, events.Next(t, 2))

	require.Equal(t, gvrtest.ListAndWatch("deployments", "ns-a", "app=x"), rec.Calls())
	require.ElementsMatch(t, []string{"ns-a/listed", "ns-a/created"}, gvrtest.Keys(t, gi.Lister(), metav1.NamespaceAll))
	got, err := gi.Lister().ByNamespace("ns-a").Get("created")
	require.NoError(t, err)
	require.Equal(t, "created", got.(*metav1.PartialObjectMetadata).Name)
}

func TestFactoryWithOptionsTransformsAndWatchesAllNamespaces(t *testing.T) {
	client := fakeClient(t, partial("ns-a", "one", "", nil), partial("ns-b", "two", "", nil))
	rec := gvrtest.Record(client)
	f := NewSharedInformerFactoryWithOptions(client, 0, WithTransform(func(obj any) (any, error) {
		m := obj.(*metav1.PartialObjectMetadata).DeepCopy()
		m.Annotations = map[string]string{"transformed": "yes"}
		return m, nil
	}))
	gi := gvrtest.Informer(t, f, deployments, nil)
	gvrtest.Start(t, f, deployments)
	<-rec.Watching
	require.Equal(t, gvrtest.ListAndWatch("deployments", "", ""), rec.Calls())
	require.ElementsMatch(t, []string{"ns-a/one", "ns-b/two"}, gvrtest.Keys(t, gi.Lister(), metav1.NamespaceAll))
	all, err := gi.Lister().List(labels.Everything())
	require.NoError(t, err)
	for _, o := range all {
		require.Equal(t, "yes", o.(*metav1.PartialObjectMetadata).Annotations["transformed"])
	}
}

func TestFactoryWithRealClient(t *testing.T) {
	path := "/apis/apps/v1/namespaces/ns-a/deployments"
	list := &metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "5"},
		Items:    []metav1.PartialObjectMetadata{*partial("ns-a", "listed", "5", nil)},
	}
	watched := partial("ns-a", "watched", "6", nil)
	watched.TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
	srv := gvrtest.NewServer(t, path, list, map[string]any{"type": "ADDED", "object": watched})
	client, err := metadata.NewForConfigAndClient(&rest.Config{Host: srv.URL()}, srv.HTTPClient())
	require.NoError(t, err)

	srv.CheckServed(t, NewFilteredSharedInformerFactory(client, 0, "ns-a", func(o *metav1.ListOptions) { o.LabelSelector = "app=x" }), deployments, path)
}

func TestRemoveInformer(t *testing.T) {
	f := NewSharedInformerFactory(fakeClient(t, partial("ns-a", "one", "", nil)), 0)
	_, ok := f.(InformerRemover)
	require.True(t, ok, "the factory has RemoveInformer")
	gvrtest.CheckRemoveInformer(t, f.(gvrtest.Remover), deployments, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"})
}
