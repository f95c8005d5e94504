// Package helper stays as it is: it takes client-go's types from another
// package of the module.
package helper

import (
	"github.com/kfanout/fanout/contrib/clientgo/cache"
)

// AddPodIndexer adds a namespace index to a factory or hand-built informer.
func AddPodIndexer(inf cache.SharedIndexInformer) error {
	return inf.AddIndexers(cache.Indexers{"ns": cache.MetaNamespaceIndexFunc})
}

// Key keys a deleted object, tombstones included.
var Key = cache.DeletionHandlingMetaNamespaceKeyFunc
