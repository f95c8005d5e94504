package informers

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// GenericInformer is client-go's generic informer interface.
type GenericInformer = k8sinformers.GenericInformer

// ForResource returns the informer of resource, the one the typed
// accessor of the same resource returns, for every resource client-go's
// own ForResource knows; for any other it returns client-go's error.
func (f *factory) ForResource(resource schema.GroupVersionResource) (GenericInformer, error) {
	if _, err := f.scratchFactory().ForResource(resource); err != nil {
		return nil, err
	}
	obj, err := objectFor(resource)
	if err != nil {
		return nil, err
	}
	return &genericInformer{informer: f.InformerFor(obj, nil), resource: resource.GroupResource()}, nil
}

// genericInformer is a GenericInformer over one of the factory's
// informers.
type genericInformer struct {
	informer cache.SharedIndexInformer
	resource schema.GroupResource
}

// Informer returns the shared informer.
func (g *genericInformer) Informer() cache.SharedIndexInformer { return g.informer }

// Lister returns a lister of the informer's cache.
func (g *genericInformer) Lister() cache.GenericLister {
	return cache.NewGenericLister(g.informer.GetIndexer(), g.resource)
}
