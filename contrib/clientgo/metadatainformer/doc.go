// Package metadatainformer is client-go's
// k8s.io/client-go/metadata/metadatainformer with fanout informers: the
// same constructors and options, client-go's own interfaces
// (SharedInformerFactory, informers.GenericInformer), and client-go's
// metadatalister on the cache. Switching a controller is one import line:
//
//	// "k8s.io/client-go/metadata/metadatainformer"
//	"github.com/kfanout/fanout/contrib/clientgo/metadatainformer"
//
// Every informer is a fanout informer; clientgo.FanoutInformer finds it
// behind GenericInformer.Informer(), for fanout's own handler options.
package metadatainformer
