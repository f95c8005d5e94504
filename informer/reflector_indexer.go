package informer

import "time"

// NewNamespaceKeyedIndexerAndReflector returns an Indexer keyed by
// MetaNamespaceKeyFunc with the NamespaceIndex, and a Reflector that
// fills it from lw.
func NewNamespaceKeyedIndexerAndReflector(lw ListerWatcher, expectedType any, resyncPeriod time.Duration) (indexer Indexer, reflector *Reflector) {
	indexer = NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	return indexer, NewReflector(lw, expectedType, indexer, resyncPeriod)
}
