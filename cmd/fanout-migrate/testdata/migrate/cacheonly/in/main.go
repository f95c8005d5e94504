// Package cacheonly uses only tools/cache: the tool switches it to fanout's
// standalone informer package.
package cacheonly

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// Start builds an informer on lw and registers h.
func Start(lw cache.ListerWatcher, obj runtime.Object, h cache.ResourceEventHandler, stop <-chan struct{}) (cache.Indexer, error) {
	inf := cache.NewSharedIndexInformer(lw, obj, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if _, err := inf.AddEventHandler(h); err != nil {
		return nil, err
	}
	go inf.Run(stop)
	cache.WaitForCacheSync(stop, inf.HasSynced)
	return inf.GetIndexer(), nil
}
