package dynamic

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/dynamic/dynamiclister"
	"k8s.io/client-go/tools/cache"
)

// Lister lists deployments through a dynamic factory.
func Lister(client dynamic.Interface) dynamiclister.Lister {
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	f := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	return dynamiclister.New(f.ForResource(gvr).Informer().GetIndexer(), gvr)
}

// Indexed lists deployments through a dynamic informer indexed by
// namespace: its indexers are converted to client-go's.
func Indexed(client dynamic.Interface) dynamiclister.Lister {
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	byNamespace := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	inf := dynamicinformer.NewFilteredDynamicInformer(client, gvr, "", 0, byNamespace, nil)
	return dynamiclister.New(inf.Informer().GetIndexer(), gvr)
}

// Unindexed gives the informer no indexers: nil stays as it is.
func Unindexed(client dynamic.Interface) dynamiclister.Lister {
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	inf := dynamicinformer.NewFilteredDynamicInformer(client, gvr, "", 0, nil, nil)
	return dynamiclister.New(inf.Informer().GetIndexer(), gvr)
}
