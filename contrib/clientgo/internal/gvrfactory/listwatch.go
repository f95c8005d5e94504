package gvrfactory

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

// Resource is what a dynamic or metadata client offers for one resource in
// one namespace (or all): a list returning L and a watch.
type Resource[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Config describes one informer made by NewInformer.
type Config struct {
	// Client is the dynamic or metadata client; it tells the reflector
	// whether watch-list requests can be served (fake clients cannot).
	Client any
	// ExampleObject is the type of the cached objects.
	ExampleObject runtime.Object
	// ResyncPeriod is the default resync period of handlers.
	ResyncPeriod time.Duration
	// Indexers are the cache's initial indexers.
	Indexers cache.Indexers
	// ObjectDescription names the objects in logs; empty means the type.
	ObjectDescription string
	// Tweak, if not nil, edits the options of every list and watch.
	Tweak func(*metav1.ListOptions)
}

// NewInformer returns a fanout informer, seen through client-go's
// interface, that lists and watches r.
func NewInformer[L runtime.Object](r Resource[L], c Config) cache.SharedIndexInformer {
	return clientgo.Wrap(informer.NewSharedIndexInformerWithOptions(
		NewListWatch(r, c.Client),
		c.ExampleObject,
		informer.SharedIndexInformerOptions{
			ResyncPeriod:      c.ResyncPeriod,
			Indexers:          clientgo.FromClientGoIndexers(c.Indexers),
			ObjectDescription: c.ObjectDescription,
			ListScope:         informer.ListScope{Tweak: c.Tweak},
		},
	))
}

// NewListWatch returns the source of an informer of r: every list and
// watch goes to r. client tells the reflector whether watch-list requests
// can be served (fake clients cannot), as client-go's generated informers
// do. A factory's tweak is not applied here but given to the informer as
// its ListScope, so that SetListOptions can replace it.
func NewListWatch[L runtime.Object](r Resource[L], client any) informer.ListerWatcher {
	lw := &informer.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return r.List(ctx, opts)
		},
		WatchFuncWithContext: r.Watch,
	}
	return informer.ToListWatcherWithWatchListSemantics(lw, client)
}
