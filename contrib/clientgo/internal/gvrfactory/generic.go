package gvrfactory

import (
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// genericInformer pairs an informer with the lister made on its cache.
type genericInformer struct {
	informer  cache.SharedIndexInformer
	newLister func(cache.Indexer) cache.GenericLister
}

var _ informers.GenericInformer = (*genericInformer)(nil)

// NewGenericInformer returns inf as client-go's GenericInformer, whose
// Lister is newLister on inf's cache.
func NewGenericInformer(inf cache.SharedIndexInformer, newLister func(cache.Indexer) cache.GenericLister) informers.GenericInformer {
	return &genericInformer{informer: inf, newLister: newLister}
}

// Informer returns the informer, a fanout informer seen through
// client-go's interface.
func (g *genericInformer) Informer() cache.SharedIndexInformer { return g.informer }

// Lister returns a lister over the informer's cache.
func (g *genericInformer) Lister() cache.GenericLister {
	return g.newLister(g.informer.GetIndexer())
}
