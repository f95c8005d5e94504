package informers

import (
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/internal/cgreflect"
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
// informers configured by options (this package's or client-go's). It
// panics if client-go's internal layout is not the one this package was
// checked on.
func NewSharedInformerFactoryWithOptions(client kubernetes.Interface, defaultResync time.Duration, options ...SharedInformerOption) SharedInformerFactory {
	if err := cgreflect.CheckLayout(); err != nil {
		panic(err)
	}
	f := &factory{client: client}
	all := append([]SharedInformerOption{beginOption(&f.configure)}, options...)
	f.inner = k8sinformers.NewSharedInformerFactoryWithOptions(client, defaultResync, all...)
	f.SharedInformerFactory = f.inner
	endBuilding(pointerOf(f.inner))
	scope, err := cgreflect.ReadFactory(f.inner)
	if err != nil {
		panic(err)
	}
	f.namespace, f.tweak = scope.Namespace, scope.TweakListOptions
	return f
}

// factory serves fanout informers. client-go's own factory, inner, keeps
// the books (one informer per type, custom resyncs, transform, start,
// sync and shutdown); this type hands it fanout informers to keep.
//
// inner is embedded so that the factory has exactly the methods of the
// linked release's interface: StartWithContext,
// WaitForCacheSyncWithContext and InformerName (client-go v0.36+) are
// inner's, and so are the group accessors a release adds after v0.35
// (Lifecycle in v0.37), which serve client-go's own informers: this
// package cannot name their groups and still build against v0.35.
type factory struct {
	SharedInformerFactory
	inner     SharedInformerFactory
	client    kubernetes.Interface
	namespace string
	tweak     internalinterfaces.TweakListOptionsFunc
	// configure is written by the options while the constructor runs and
	// only read afterwards.
	configure []ConfigureFunc

	scratchOnce sync.Once
	// scratch is a client-go factory with the same scope, never started:
	// ForResource asks it which informer a resource needs.
	scratch SharedInformerFactory
}

var _ SharedInformerFactory = (*factory)(nil)

// Start runs every informer requested so far and not yet started until
// stopCh is closed.
func (f *factory) Start(stopCh <-chan struct{}) { f.inner.Start(stopCh) }

// Shutdown stops new starts and waits for the started informers to stop.
func (f *factory) Shutdown() { f.inner.Shutdown() }

// WaitForCacheSync waits until the started informers have synced or
// stopCh is closed.
func (f *factory) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	return f.inner.WaitForCacheSync(stopCh)
}

// InformerFor returns the informer of obj's type, building it the first
// time from what newFunc builds: a client-go informer becomes a fanout
// informer with the same source, example object and indexers; a fanout
// informer from contrib/clientgo is kept as it is. Any other informer
// makes it panic.
func (f *factory) InformerFor(obj runtime.Object, newFunc internalinterfaces.NewInformerFunc) cache.SharedIndexInformer {
	return f.inner.InformerFor(obj, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return f.convert(newFunc(client, resync), resync)
	})
}

// convert returns built as a fanout informer.
func (f *factory) convert(built cache.SharedIndexInformer, resync time.Duration) cache.SharedIndexInformer {
	inf, err := fromClientGo(built, resync, f.configure)
	if err != nil {
		panic(fmt.Errorf("informers: InformerFor: %w", err))
	}
	return inf
}

// scratchFactory returns the factory ForResource consults.
func (f *factory) scratchFactory() SharedInformerFactory {
	f.scratchOnce.Do(func() {
		f.scratch = k8sinformers.NewSharedInformerFactoryWithOptions(f.client, 0, WithNamespace(f.namespace), WithTweakListOptions(f.tweak))
	})
	return f.scratch
}

// pointerOf is the address held by an interface of pointer type.
func pointerOf(v any) unsafe.Pointer { return reflect.ValueOf(v).UnsafePointer() }
