package cgreflect

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/tools/cache"
)

// InformerParts is what a client-go shared informer was built from.
type InformerParts struct {
	// ListerWatcher is the informer's source, as the constructor made it.
	ListerWatcher cache.ListerWatcher
	// ObjectType is the example object.
	ObjectType runtime.Object
	// ObjectDescription is the description given to the constructor.
	ObjectDescription string
	// Resource is the resource the constructor named in its identifier;
	// zero when it named none, and always on client-go v0.35, whose
	// informers have no identifier.
	Resource schema.GroupVersionResource
	// Indexers are the cache's index functions.
	Indexers cache.Indexers
}

// Unwrap returns the informer behind client-go's typed wrappers
// (cache.NewTypedSharedIndexInformer, which generated Informer() methods
// return), or inf itself.
func Unwrap(inf cache.SharedIndexInformer) cache.SharedIndexInformer {
	for inf != nil {
		v := reflect.ValueOf(inf)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return inf
		}
		t := v.Elem().Type()
		if t.PkgPath() != "k8s.io/client-go/tools/cache" || !strings.HasPrefix(t.Name(), "typedSharedIndexInformer[") {
			return inf
		}
		inner := v.Elem().FieldByName("SharedIndexInformer")
		if !inner.IsValid() || inner.Type() != reflect.TypeFor[cache.SharedIndexInformer]() {
			return inf
		}
		next, _ := inner.Interface().(cache.SharedIndexInformer)
		if next == inf {
			return inf
		}
		inf = next
	}
	return inf
}

// ReadInformer returns what the client-go informer inf (possibly typed)
// was built from. inf must not have been started: its indexers are read
// as they are now.
func ReadInformer(inf cache.SharedIndexInformer) (InformerParts, error) {
	if err := CheckLayout(); err != nil {
		return InformerParts{}, err
	}
	base := Unwrap(inf)
	if reflect.TypeOf(base) != informerType {
		return InformerParts{}, fmt.Errorf("fanout: %T is not client-go's shared informer", inf)
	}
	s := reflect.ValueOf(base).Elem()
	p := InformerParts{ObjectDescription: s.FieldByName("objectDescription").String()}
	if lw := readField(s, "listerWatcher"); lw != nil {
		p.ListerWatcher = lw.(cache.ListerWatcher)
	}
	if obj := readField(s, "objectType"); obj != nil {
		p.ObjectType = obj.(runtime.Object)
	}
	if _, ok := s.Type().FieldByName(identifierField); ok {
		if id, ok := readField(s, identifierField).(resourceNamer); ok {
			p.Resource = id.GroupVersionResource()
		}
	}
	p.Indexers = base.GetIndexer().GetIndexers()
	return p, nil
}

// FactoryScope is what a client-go factory's options chose.
type FactoryScope struct {
	// Namespace is the namespace of namespaced informers; "" for all.
	Namespace string
	// TweakListOptions changes every list and watch request; may be nil.
	TweakListOptions internalinterfaces.TweakListOptionsFunc
	// DefaultResync is the factory's default resync period.
	DefaultResync time.Duration
}

// ReadFactory returns the scope of the factory f built by
// k8s.io/client-go/informers.NewSharedInformerFactoryWithOptions.
func ReadFactory(f any) (FactoryScope, error) {
	if err := CheckLayout(); err != nil {
		return FactoryScope{}, err
	}
	if reflect.TypeOf(f) != factoryType {
		return FactoryScope{}, fmt.Errorf("fanout: %T is not client-go's shared informer factory", f)
	}
	s := reflect.ValueOf(f).Elem()
	scope := FactoryScope{
		Namespace:     s.FieldByName("namespace").String(),
		DefaultResync: time.Duration(s.FieldByName("defaultResync").Int()),
	}
	if tweak := readField(s, "tweakListOptions"); tweak != nil {
		scope.TweakListOptions = tweak.(internalinterfaces.TweakListOptionsFunc)
	}
	return scope, nil
}

// readField returns the value of the unexported field name of the
// addressable struct s, or nil for a nil interface.
func readField(s reflect.Value, name string) any {
	f := s.FieldByName(name)
	v := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	if v.Kind() == reflect.Interface && v.IsNil() {
		return nil
	}
	return v.Interface()
}
