package informers

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrfactory"
	"github.com/kfanout/fanout/contrib/clientgo/internal/release"
	"github.com/kfanout/fanout/contrib/clientgo/internal/typedclient"
	"github.com/kfanout/fanout/informer"
)

// SharedInformerFactory is client-go's factory interface.
type SharedInformerFactory = k8sinformers.SharedInformerFactory

// NewSharedInformerFactory returns a factory of fanout informers for all
// namespaces, resyncing every defaultResync (0 for never).
func NewSharedInformerFactory(client kubernetes.Interface, defaultResync time.Duration) SharedInformerFactory {
	return NewSharedInformerFactoryWithOptions(client, defaultResync)
}

// NewFilteredSharedInformerFactory returns a factory of fanout informers
// limited to namespace whose requests tweakListOptions changes.
func NewFilteredSharedInformerFactory(client kubernetes.Interface, defaultResync time.Duration, namespace string, tweakListOptions internalinterfaces.TweakListOptionsFunc) SharedInformerFactory {
	return NewSharedInformerFactoryWithOptions(client, defaultResync, WithNamespace(namespace), WithTweakListOptions(tweakListOptions))
}

// NewSharedInformerFactoryWithOptions returns a factory of fanout
// informers configured by options. It panics with an error naming the
// supported range if the binary links a client-go release outside it.
func NewSharedInformerFactoryWithOptions(client kubernetes.Interface, defaultResync time.Duration, options ...SharedInformerOption) SharedInformerFactory {
	if err := release.Check(); err != nil {
		panic(err)
	}
	f := &factory{
		client:        client,
		defaultResync: defaultResync,
		informers:     map[reflect.Type]*entry{},
		slots:         map[reflect.Type]*slot{},
	}
	for _, opt := range options {
		if opt != nil {
			opt(&f.options)
		}
	}
	f.inner = k8sinformers.NewSharedInformerFactoryWithOptions(client, defaultResync, f.options.clientGo...)
	f.SharedInformerFactory = f.inner
	return f
}

// factory serves fanout informers and keeps its own books: one informer
// per type (until RemoveInformer), custom resyncs, transform, start, sync
// and shutdown.
//
// client-go's own factory, inner, is embedded so that the factory has
// exactly the methods of the linked release's interface:
// WaitForCacheSyncWithContext and InformerName (client-go v0.36+) are
// inner's, and so are the group accessors a release adds after v0.35
// (Lifecycle in v0.37), which serve client-go's own informers: this
// package cannot name their groups and still build against v0.35. inner
// holds, for each type, a slot standing for the factory's current
// informer of the type (see slot), so that its WaitForCacheSyncWithContext
// waits for fanout's informers.
type factory struct {
	SharedInformerFactory
	inner         SharedInformerFactory
	client        kubernetes.Interface
	options       factoryOptions
	defaultResync time.Duration

	mu sync.Mutex // guards the fields below; held while building an informer
	// informers holds the current informer of each type.
	informers map[reflect.Type]*entry
	// slots holds what inner keeps for each type ever requested.
	slots map[reflect.Type]*slot
	// shuttingDown is set by the first Shutdown; Start does nothing after.
	shuttingDown bool
	// wg counts the goroutines Start runs; each ends when the context (or
	// stop channel) it was started with is done, or its informer stops.
	wg sync.WaitGroup

	scratchOnce sync.Once
	// scratch is a client-go factory with the same scope, never started:
	// ForResource asks it which resources the linked release serves.
	scratch SharedInformerFactory
}

var _ SharedInformerFactory = (*factory)(nil)

// InformerFor returns the informer of obj's type, building it the first
// time, and again after RemoveInformer (or the informer's own Shutdown).
// For client-go's generated accessors (and a nil newFunc) it is a fanout
// informer over the client's typed client of that type, with the factory's
// namespace, tweak, resync (WithCustomResyncConfig's for the type) and
// transform and client-go's namespace index. Any other newFunc is called:
// the informer it returns is kept as it is, a fanout informer (from
// contrib/clientgo or contrib/clientgo/cache) or client-go's own, which is
// then served by client-go (logged once per type).
func (f *factory) InformerFor(obj k8sruntime.Object, newFunc internalinterfaces.NewInformerFunc) cache.SharedIndexInformer {
	t := reflect.TypeOf(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pruneLocked()
	if e, ok := f.informers[t]; ok {
		return e.inf
	}
	resync, ok := f.options.customResync[t]
	if !ok {
		resync = f.defaultResync
	}
	var inf cache.SharedIndexInformer
	if newFunc == nil || isGenerated(newFunc) {
		inf = f.build(obj, resync)
	} else {
		inf = newFunc(f.client, resync)
		if _, ok := clientgo.FanoutInformer(inf); !ok && inf != nil {
			klog.Background().Info("InformerFor: the informer constructor returned client-go's informer, which stays client-go's; build it with github.com/kfanout/fanout/contrib/clientgo/cache for a fanout informer", "type", fmt.Sprintf("%T", obj))
		}
	}
	if inf != nil && f.options.transform != nil {
		_ = inf.SetTransform(f.options.transform) // cannot fail: not started
	}
	f.informers[t] = &entry{inf: inf, removed: make(chan struct{})}
	f.slotLocked(obj, t)
	return inf
}

// isGenerated reports whether newFunc is the defaultInformer method of
// one of client-go's generated informers (k8s.io/client-go/informers/...).
func isGenerated(newFunc internalinterfaces.NewInformerFunc) bool {
	fn := runtime.FuncForPC(reflect.ValueOf(newFunc).Pointer())
	if fn == nil {
		return false
	}
	name := fn.Name()
	return strings.HasPrefix(name, "k8s.io/client-go/informers/") && strings.HasSuffix(name, ".defaultInformer-fm")
}

// build returns the fanout informer of obj's type.
func (f *factory) build(obj k8sruntime.Object, resync time.Duration) cache.SharedIndexInformer {
	o := FanoutOptions{Informer: informer.SharedIndexInformerOptions{
		ResyncPeriod: resync,
		Indexers:     informer.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		ListScope:    informer.ListScope{Tweak: f.options.tweak},
	}}
	r := Resource{GVR: guessResource(obj), Object: obj}
	for _, c := range f.options.configure {
		c(r, &o)
	}
	build := informer.NewSharedIndexInformerWithOptions
	if o.New != nil {
		build = o.New
	}
	inf := build(f.listWatch(obj), obj, o.Informer)
	if inf == nil {
		panic(fmt.Errorf("informers: InformerFor: FanoutOptions.New returned nil for %v", r.GVR))
	}
	return clientgo.WrapWithHandlerDefaults(inf, o.Handler)
}

// listWatch returns the source of obj's informer: the client's typed
// client of obj's type, in the factory's namespace (its tweak is the
// informer's ListScope, see build). A
// client without one gives a source whose every request fails with the
// reason, as client-go's informer over a nil client fails when run.
func (f *factory) listWatch(obj k8sruntime.Object) informer.ListerWatcher {
	res, err := typedclient.Find(f.client, obj)
	if err != nil {
		return gvrfactory.NewListWatch[k8sruntime.Object](failing{err}, f.client)
	}
	return gvrfactory.NewListWatch[k8sruntime.Object](res.In(f.client, f.options.namespace), f.client)
}

// failing is a source whose every request fails with err.
type failing struct{ err error }

func (s failing) List(context.Context, metav1.ListOptions) (k8sruntime.Object, error) {
	return nil, s.err
}

func (s failing) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, s.err
}

// scratchFactory returns the factory ForResource consults.
func (f *factory) scratchFactory() SharedInformerFactory {
	f.scratchOnce.Do(func() {
		f.scratch = k8sinformers.NewSharedInformerFactoryWithOptions(f.client, 0)
	})
	return f.scratch
}
