package dynamic

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/dynamic/dynamiclister"
)

// Lister lists deployments through a dynamic factory.
func Lister(client dynamic.Interface) dynamiclister.Lister {
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	f := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	return dynamiclister.New(f.ForResource(gvr).Informer().GetIndexer(), gvr)
}
