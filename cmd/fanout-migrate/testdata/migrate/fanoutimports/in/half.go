package fanoutimports

import (
	cache "github.com/kfanout/fanout/informer"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamiclister"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatalister"

	"github.com/kfanout/fanout/contrib/clientgo/dynamicinformer"
	"github.com/kfanout/fanout/contrib/clientgo/metadatainformer"
)

// A module switched by hand already imports fanout's packages; the
// fanout cache.Indexers it gives the dynamic and metadata informer
// constructors, which take client-go's, are converted all the same.

// byNamespace indexes by namespace, with fanout's index function.
var byNamespace = cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}

// Deployments lists deployments through a dynamic informer.
func Deployments(client dynamic.Interface) dynamiclister.Lister {
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	inf := dynamicinformer.NewFilteredDynamicInformer(client, gvr, "", 0, byNamespace, nil)
	return dynamiclister.New(inf.Informer().GetIndexer(), gvr)
}

// Secrets lists secrets through a metadata informer.
func Secrets(client metadata.Interface) metadatalister.Lister {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	inf := metadatainformer.NewFilteredMetadataInformer(client, gvr, "", 0, byNamespace, nil)
	return metadatalister.New(inf.Informer().GetIndexer(), gvr)
}
