package metadata

import (
	"github.com/kfanout/fanout/contrib/clientgo"
	mi "github.com/kfanout/fanout/contrib/clientgo/metadatainformer"
	cache "github.com/kfanout/fanout/informer"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatalister"
)

// Lister lists secrets through a metadata informer.
func Lister(client metadata.Interface) metadatalister.Lister {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	inf := mi.NewFilteredMetadataInformer(client, gvr, "", 0, clientgo.ToClientGoIndexers(cache.Indexers{}), nil)
	return metadatalister.New(inf.Informer().GetIndexer(), gvr)
}

// Secrets is an informer of secrets with a namespace index.
func Secrets(client metadata.Interface) cache.SharedIndexInformer {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	byNamespace := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	inf := mi.NewFilteredMetadataInformer(client, gvr, "", 0, clientgo.ToClientGoIndexers(byNamespace), nil).Informer()
	return inf
}
