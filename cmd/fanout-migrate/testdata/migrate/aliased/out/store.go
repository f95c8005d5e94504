// Package store keeps pods.
package store

import (
	fanoutclientgo "github.com/kfanout/fanout/contrib/clientgo"
	toolscache "github.com/kfanout/fanout/informer" // the informer cache
	listers "k8s.io/client-go/listers/core/v1"
)

var clientgo = "taken"

// NewLister lists what idx holds.
func NewLister(idx toolscache.Indexer) listers.PodLister {
	return listers.NewPodLister(fanoutclientgo.Indexer(idx))
}
