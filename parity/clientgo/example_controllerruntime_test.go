package parity_test

import (
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

// A controller-runtime manager runs fanout informers when its cache is
// given fanout's constructor. The example needs a cluster, so it is only
// compiled; TestControllerRuntimeCacheUsesFanout runs the same option.
func ExampleNewSharedIndexInformer_controllerRuntime() {
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Cache: cache.Options{NewInformer: clientgo.NewSharedIndexInformer},
	})
	if err != nil {
		panic(err)
	}
	_ = mgr // add controllers, then mgr.Start(ctx)
}

// NewSharedIndexInformerFunc sets fanout's own informer options for every
// informer of the manager's cache, here the seed preset.
func ExampleNewSharedIndexInformerFunc() {
	_ = cache.Options{
		NewInformer: clientgo.NewSharedIndexInformerFunc(func(o *informer.SharedIndexInformerOptions) {
			*o = informer.SeedPreset(*o)
		}),
	}
}
