package metadatainformer

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrfactory"
)

// NewFilteredMetadataInformer returns an informer of gvr's objects, as
// *metav1.PartialObjectMetadata, in namespace (metav1.NamespaceAll for
// all), with tweakListOptions, if not nil, applied to every list and
// watch. It is not started; run its Informer() or use a factory.
func NewFilteredMetadataInformer(client metadata.Interface, gvr schema.GroupVersionResource, namespace string, resyncPeriod time.Duration, indexers cache.Indexers, tweakListOptions TweakListOptionsFunc) informers.GenericInformer {
	inf := gvrfactory.NewInformer(client.Resource(gvr).Namespace(namespace), gvrfactory.Config{
		Client:        client,
		ExampleObject: &metav1.PartialObjectMetadata{},
		ResyncPeriod:  resyncPeriod,
		Indexers:      indexers,
		Tweak:         tweakListOptions,
	})
	return gvrfactory.NewGenericInformer(inf, func(idx cache.Indexer) cache.GenericLister {
		return metadatalister.NewRuntimeObjectShim(metadatalister.New(idx, gvr))
	})
}
