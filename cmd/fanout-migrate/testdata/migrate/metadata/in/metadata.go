package metadata

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	mi "k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/cache"
)

// Lister lists secrets through a metadata informer.
func Lister(client metadata.Interface) metadatalister.Lister {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	inf := mi.NewFilteredMetadataInformer(client, gvr, "", 0, cache.Indexers{}, nil)
	return metadatalister.New(inf.Informer().GetIndexer(), gvr)
}

// Secrets is an informer of secrets with a namespace index.
func Secrets(client metadata.Interface) cache.SharedIndexInformer {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	byNamespace := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	inf := mi.NewFilteredMetadataInformer(client, gvr, "", 0, byNamespace, nil).Informer()
	return inf
}
