package informers

import (
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// SharedInformerOption configures a factory, as client-go's options of the
// same names do. It is this package's own type: client-go's options write
// into client-go's factory, which fanout does not read, so passing one here
// is a compile error rather than a setting silently lost.
type SharedInformerOption func(*factoryOptions)

// factoryOptions is what the options set.
type factoryOptions struct {
	namespace string
	tweak     internalinterfaces.TweakListOptionsFunc
	// customResync and transform are WithCustomResyncConfig's and
	// WithTransform's, for the factory's own informers.
	customResync map[reflect.Type]time.Duration
	transform    cache.TransformFunc
	// clientGo are the options passed on to the client-go factory that
	// serves client-go's own informers (the groups added after v0.35).
	clientGo  []k8sinformers.SharedInformerOption
	configure []ConfigureFunc
}

// WithNamespace limits the factory's namespaced informers to namespace.
func WithNamespace(namespace string) SharedInformerOption {
	return func(o *factoryOptions) {
		o.namespace = namespace
		o.clientGo = append(o.clientGo, k8sinformers.WithNamespace(namespace))
	}
}

// WithTweakListOptions changes the options of every list and watch
// request the factory's informers make.
func WithTweakListOptions(tweakListOptions internalinterfaces.TweakListOptionsFunc) SharedInformerOption {
	return func(o *factoryOptions) {
		o.tweak = tweakListOptions
		o.clientGo = append(o.clientGo, k8sinformers.WithTweakListOptions(tweakListOptions))
	}
}

// WithCustomResyncConfig sets the resync period of the informers of the
// given objects' types.
func WithCustomResyncConfig(resyncConfig map[metav1.Object]time.Duration) SharedInformerOption {
	return func(o *factoryOptions) {
		if o.customResync == nil {
			o.customResync = map[reflect.Type]time.Duration{}
		}
		for obj, resync := range resyncConfig {
			o.customResync[reflect.TypeOf(obj)] = resync
		}
		o.clientGo = append(o.clientGo, k8sinformers.WithCustomResyncConfig(resyncConfig))
	}
}

// WithTransform sets the transform of every informer of the factory.
func WithTransform(transform cache.TransformFunc) SharedInformerOption {
	return func(o *factoryOptions) {
		o.transform = transform
		o.clientGo = append(o.clientGo, k8sinformers.WithTransform(transform))
	}
}

// Resource is the informer a FanoutOptions function configures.
type Resource struct {
	// GVR is the resource, derived from client-go's scheme; zero for a
	// type the scheme does not know.
	GVR schema.GroupVersionResource
	// Object is the informer's example object, such as &corev1.Pod{}.
	Object runtime.Object
}

// FanoutOptions are fanout's settings of one informer of the factory.
type FanoutOptions struct {
	// Informer builds the fanout informer. ResyncPeriod and Indexers are
	// filled in as client-go's generated constructor chooses them; any
	// field may be changed (InOrder, ListenerEngine,
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
// builds, before building it; several are called in order.
func WithFanoutOptions(configure ConfigureFunc) SharedInformerOption {
	return func(o *factoryOptions) {
		if configure != nil {
			o.configure = append(o.configure, configure)
		}
	}
}
