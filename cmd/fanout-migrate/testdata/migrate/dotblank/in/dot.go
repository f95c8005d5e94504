package dotblank

import (
	corev1listers "k8s.io/client-go/listers/core/v1"
	. "k8s.io/client-go/tools/cache"
)

// PodLister lists the pods of a new indexer.
func PodLister() corev1listers.PodLister {
	return corev1listers.NewPodLister(NewIndexer(MetaNamespaceKeyFunc, Indexers{}))
}
