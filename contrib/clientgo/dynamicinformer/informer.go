package dynamicinformer

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamiclister"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrfactory"
)

// NewFilteredDynamicInformer returns an informer of gvr's objects, as
// *unstructured.Unstructured, in namespace (metav1.NamespaceAll for all),
// with tweakListOptions, if not nil, applied to every list and watch. It
// is not started; run its Informer() or use a factory.
func NewFilteredDynamicInformer(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string, resyncPeriod time.Duration, indexers cache.Indexers, tweakListOptions TweakListOptionsFunc) informers.GenericInformer {
	inf := gvrfactory.NewInformer(client.Resource(gvr).Namespace(namespace), gvrfactory.Config{
		Client:            client,
		ExampleObject:     &unstructured.Unstructured{},
		ResyncPeriod:      resyncPeriod,
		Indexers:          indexers,
		ObjectDescription: gvr.String(),
		Tweak:             tweakListOptions,
	})
	return gvrfactory.NewGenericInformer(inf, func(idx cache.Indexer) cache.GenericLister {
		return dynamiclister.NewRuntimeObjectShim(dynamiclister.New(idx, gvr))
	})
}
