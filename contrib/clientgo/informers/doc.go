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
// The options are client-go's own (SharedInformerOption is an alias), so
// client-go's WithNamespace and friends work here too.
//
// How it works: the factory lets client-go's generated constructors build
// each informer as they would, unstarted, reads what they chose (source,
// example object, indexers, resource) and builds a fanout informer from
// it. Reading that needs a few of client-go's unexported fields; they are
// checked on first use, and a client-go whose layout differs makes the
// constructors panic with a message naming the field, rather than serve
// wrong informers.
package informers
