// Package informers is k8s.io/client-go/informers with fanout informers:
// switching a controller is one import line,
//
//	informers "github.com/kfanout/fanout/contrib/clientgo/informers"
//
// and the factory it returns is client-go's SharedInformerFactory
// interface, with client-go's generated group accessors, typed informers
// and listers (f.Core().V1().Pods().Lister()), ForResource, Start,
// WaitForCacheSync and Shutdown. Every informer it hands out is a fanout
// informer seen through client-go's cache.SharedIndexInformer; use
// clientgo.FanoutInformer to reach it, and WithFanoutOptions to set
// fanout's informer and handler options per resource.
//
// The options are this package's own, named as client-go's
// (WithNamespace, WithTweakListOptions, WithCustomResyncConfig,
// WithTransform).
//
// How it works: client-go's generated group accessors of the linked
// release are built on this factory, so every informer they ask for comes
// through InformerFor, which builds a fanout informer that lists and
// watches through the clientset's exported typed client of that object
// type. Nothing of client-go's internals is read. The constructors panic,
// naming the supported range, if the binary links a client-go release
// outside it.
package informers
