package dotblank

import (
	"github.com/kfanout/fanout/contrib/clientgo"
	. "github.com/kfanout/fanout/informer"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

// PodLister lists the pods of a new indexer.
func PodLister() corev1listers.PodLister {
	return corev1listers.NewPodLister(clientgo.Indexer(NewIndexer(MetaNamespaceKeyFunc, Indexers{})))
}
