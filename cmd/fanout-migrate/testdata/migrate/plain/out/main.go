package main

import (
	"fmt"

	"github.com/kfanout/fanout/contrib/clientgo"
	cache "github.com/kfanout/fanout/informer"
	corev1 "k8s.io/api/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

type controller struct {
	informer cache.SharedIndexInformer
	lister   corev1listers.PodLister
}

func newController(lw cache.ListerWatcher) *controller {
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	c := &controller{informer: inf}
	c.lister = corev1listers.NewPodLister(clientgo.Indexer(inf.GetIndexer()))
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			fmt.Println(key)
		},
	})
	return c
}

// secondLister reads the field in another function.
func (c *controller) secondLister() corev1listers.PodLister {
	return corev1listers.NewPodLister(clientgo.Indexer(c.informer.GetIndexer()))
}

func main() {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = corev1listers.NewPodLister // a value, not a call
	fmt.Println(corev1listers.NewPodLister(clientgo.Indexer(idx)) != nil, newController(nil).secondLister() != nil)
}
