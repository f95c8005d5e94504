package informers

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/informer"
)

// SharedInformerOption configures a factory. It is client-go's type, so
// client-go's options can be passed as well as this package's.
type SharedInformerOption = k8sinformers.SharedInformerOption

// WithNamespace limits the factory's namespaced informers to namespace.
func WithNamespace(namespace string) SharedInformerOption {
	return k8sinformers.WithNamespace(namespace)
}

// WithTweakListOptions changes the options of every list and watch
// request the factory's informers make.
func WithTweakListOptions(tweakListOptions internalinterfaces.TweakListOptionsFunc) SharedInformerOption {
	return k8sinformers.WithTweakListOptions(tweakListOptions)
}

// WithCustomResyncConfig sets the resync period of the informers of the
// given objects' types.
func WithCustomResyncConfig(resyncConfig map[metav1.Object]time.Duration) SharedInformerOption {
	return k8sinformers.WithCustomResyncConfig(resyncConfig)
}

// WithTransform sets the transform of every informer of the factory.
func WithTransform(transform cache.TransformFunc) SharedInformerOption {
	return k8sinformers.WithTransform(transform)
}

// Resource is the informer a FanoutOptions function configures.
type Resource struct {
	// GVR is the resource, as the generated constructor names it; zero
	// for an informer whose constructor names none.
	GVR schema.GroupVersionResource
	// Object is the informer's example object, such as &corev1.Pod{}.
	Object runtime.Object
}

// FanoutOptions are fanout's settings of one informer of the factory.
type FanoutOptions struct {
	// Informer builds the fanout informer. ResyncPeriod, Indexers and
	// ObjectDescription are filled in as client-go's constructor chose
	// them; any field may be changed (InOrder, ListenerEngine,
	// ListenerMetricsProvider, ...).
	Informer informer.SharedIndexInformerOptions
	// Handler holds the defaults of every handler registered on the
	// informer through client-go's AddEventHandler methods: Overflow,
	// MaxPending, Workers, RecoverPanics, Name (see
	// clientgo.WrapWithHandlerDefaults).
	Handler informer.HandlerOptions
	// New builds the informer from the factory's source, the example
	// object and Informer, in place of
	// informer.NewSharedIndexInformerWithOptions (used when nil). It is how
	// contrib/sharding's WithSharding makes a sharded factory; a
	// replacement must honour Informer's fields.
	New func(lw informer.ListerWatcher, exampleObject runtime.Object, options informer.SharedIndexInformerOptions) informer.SharedIndexInformer
}

// ConfigureFunc sets the FanoutOptions of one informer.
type ConfigureFunc func(r Resource, o *FanoutOptions)

// WithFanoutOptions calls configure for every informer the factory
// builds, before building it; several are called in order. It has an
// effect only on this package's factories: passed to client-go's own
// factory, it is ignored with a logged error.
func WithFanoutOptions(configure ConfigureFunc) SharedInformerOption {
	fn := reflect.MakeFunc(optionType, func(args []reflect.Value) []reflect.Value {
		addConfigure(args[0].UnsafePointer(), configure)
		return args
	})
	return fn.Interface().(SharedInformerOption)
}

// optionType is client-go's option type, whose argument is the
// unexported factory struct; WithFanoutOptions makes a function of it.
var optionType = reflect.TypeFor[SharedInformerOption]()

// building holds, for each client-go factory that one of this package's
// constructors is configuring, the fanout settings its options gave.
var building = struct {
	sync.Mutex
	m map[unsafe.Pointer]*[]ConfigureFunc
}{m: map[unsafe.Pointer]*[]ConfigureFunc{}}

// beginOption returns an option that marks the factory it is applied to
// as being built by this package, collecting into into.
func beginOption(into *[]ConfigureFunc) SharedInformerOption {
	fn := reflect.MakeFunc(optionType, func(args []reflect.Value) []reflect.Value {
		building.Lock()
		building.m[args[0].UnsafePointer()] = into
		building.Unlock()
		return args
	})
	return fn.Interface().(SharedInformerOption)
}

// endBuilding forgets the factory at p.
func endBuilding(p unsafe.Pointer) {
	building.Lock()
	delete(building.m, p)
	building.Unlock()
}

// addConfigure records configure for the factory at p.
func addConfigure(p unsafe.Pointer, configure ConfigureFunc) {
	building.Lock()
	into, ok := building.m[p]
	if ok && configure != nil {
		*into = append(*into, configure)
	}
	building.Unlock()
	if !ok {
		klog.Background().Error(nil, "WithFanoutOptions has no effect on k8s.io/client-go/informers' factory; use github.com/kfanout/fanout/contrib/clientgo/informers")
	}
}
