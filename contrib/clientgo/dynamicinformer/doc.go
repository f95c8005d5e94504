// Package dynamicinformer is client-go's k8s.io/client-go/dynamic/dynamicinformer
// with fanout informers: the same constructors and client-go's own
// interfaces (DynamicSharedInformerFactory, informers.GenericInformer), and
// client-go's dynamiclister on the cache. Switching a controller is one
// import line:
//
//	// "k8s.io/client-go/dynamic/dynamicinformer"
//	"github.com/kfanout/fanout/contrib/clientgo/dynamicinformer"
//
// Every informer is a fanout informer; clientgo.FanoutInformer finds it
// behind GenericInformer.Informer(), for fanout's own handler options.
package dynamicinformer
