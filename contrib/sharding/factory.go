package sharding

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/informer"
)

// WithSharding makes a factory of contrib/clientgo/informers (the drop-in
// for k8s.io/client-go/informers) build sharded informers:
//
//	f := informers.NewSharedInformerFactoryWithOptions(cs, resync, sharding.WithSharding(sharding.Options{Ring: &ring}))
//	cms := f.Core().V1().ConfigMaps() // Informer() is sharded, Lister() lists owned objects only
//
// Each type's informer is a ShardedInformer with opts, except that its
// per-range informers take the options the factory and its other
// WithFanoutOptions set (resync period, indexers, InOrder, ...) in place
// of opts.Informer, and it takes part in the ring RingFor(opts.Ring.Ring,
// the type's example object), as with NewInformerFunc.
func WithSharding(opts Options) informers.SharedInformerOption {
	return informers.WithFanoutOptions(func(_ informers.Resource, o *informers.FanoutOptions) {
		o.New = func(lw informer.ListerWatcher, exampleObject runtime.Object, io informer.SharedIndexInformerOptions) informer.SharedIndexInformer {
			so := opts
			so.Informer = io
			return newTypeInformer(lw, exampleObject, io.ResyncPeriod, nil, so)
		}
	})
}
