package ctrl

import (
	cache "github.com/kfanout/fanout/informer"
)

// convertedInformer implements client-go's SharedIndexInformer by
// embedding one and overriding GetIndexer, as Kubernetes'
// replication/conversion.go does.
type convertedInformer struct {
	cache.SharedIndexInformer
}

// GetIndexer returns the embedded informer's indexer.
func (i convertedInformer) GetIndexer() cache.Indexer { return i.SharedIndexInformer.GetIndexer() }

// asClientGo hands the converted informer on as client-go's type.
func asClientGo(inf cache.SharedIndexInformer) cache.SharedIndexInformer {
	return convertedInformer{inf}
}
