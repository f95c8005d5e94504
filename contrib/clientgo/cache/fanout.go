package cache

import (
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

// AddEventHandlerWithFanoutOptions registers h on the fanout informer
// behind inf (one this package, contrib/clientgo or its factories built)
// with fanout's handler options: overflow policy, keyed workers, panic
// recovery, name. h receives client-go's DeletedFinalStateUnknown, and the
// registration is client-go's type; clientgo.FanoutRegistration gives its
// fanout view, with Stats. It fails when inf is not a fanout informer.
func AddEventHandlerWithFanoutOptions(inf cache.SharedIndexInformer, h cache.ResourceEventHandler, options informer.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return clientgo.AddEventHandlerWithFanoutOptions(inf, h, options)
}

// FanoutInformer returns the fanout informer behind inf, and false when
// fanout did not build it.
func FanoutInformer(inf cache.SharedIndexInformer) (informer.FanoutInformer, bool) {
	return clientgo.FanoutInformer(inf)
}
