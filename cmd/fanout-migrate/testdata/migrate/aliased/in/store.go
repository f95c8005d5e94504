// Package store keeps pods.
package store

import (
	listers "k8s.io/client-go/listers/core/v1"
	toolscache "k8s.io/client-go/tools/cache" // the informer cache
)

var clientgo = "taken"

// NewLister lists what idx holds.
func NewLister(idx toolscache.Indexer) listers.PodLister {
	return listers.NewPodLister(idx)
}
