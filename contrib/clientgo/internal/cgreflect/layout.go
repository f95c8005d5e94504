package cgreflect

import (
	"fmt"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/tools/cache"
)

// SupportedRange names the client-go releases whose layout this package was
// checked on, one per supported minor (v0.35.0-v0.35.10, v0.36.0-v0.36.6,
// v0.37.0-v0.37.2 read from their source); a layout error names it.
const SupportedRange = "v0.35, v0.36 and v0.37"

// field is an unexported field read from a client-go struct.
type field struct {
	name string
	typ  reflect.Type
}

// informerFields are the fields of client-go's *cache.sharedIndexInformer
// that InformerParts reads.
var informerFields = []field{
	{"listerWatcher", reflect.TypeFor[cache.ListerWatcher]()},
	{"objectType", reflect.TypeFor[runtime.Object]()},
	{"objectDescription", reflect.TypeFor[string]()},
}

// identifierField is the field of client-go's *cache.sharedIndexInformer
// that names the informer's resource, from client-go v0.36 on. It is
// optional (v0.35 has none) and is read through its GroupVersionResource
// method, not its type's name, which v0.35 does not declare.
const identifierField = "identifier"

// resourceNamer is what the identifier field offers.
type resourceNamer interface {
	GroupVersionResource() schema.GroupVersionResource
}

// factoryFields are the fields of client-go's *informers.sharedInformerFactory
// that FactoryScope reads.
var factoryFields = []field{
	{"namespace", reflect.TypeFor[string]()},
	{"tweakListOptions", reflect.TypeFor[internalinterfaces.TweakListOptionsFunc]()},
	{"defaultResync", reflect.TypeFor[time.Duration]()},
}

var (
	layoutOnce sync.Once
	layoutErr  error
	// informerType and factoryType are the struct types behind client-go's
	// constructors, found by building one of each.
	informerType reflect.Type
	factoryType  reflect.Type
)

// CheckLayout returns an error that names the first field this package
// reads from client-go but cannot find with the expected type. It checks
// once; later calls return the first result.
func CheckLayout() error {
	layoutOnce.Do(func() { layoutErr = checkLayout() })
	return layoutErr
}

func checkLayout() error {
	if err := checkVersion(linkedClientGo()); err != nil {
		return err
	}
	inf := cache.NewSharedIndexInformer(nil, &runtime.Unknown{}, 0, nil)
	informerType = reflect.TypeOf(inf)
	if err := checkStruct(informerType, "k8s.io/client-go/tools/cache", "sharedIndexInformer", informerFields); err != nil {
		return err
	}
	if f, ok := informerType.Elem().FieldByName(identifierField); ok && !f.Type.Implements(reflect.TypeFor[resourceNamer]()) {
		return layoutError(fmt.Sprintf("cache.sharedIndexInformer.%s is %v, which has no GroupVersionResource method", identifierField, f.Type))
	}
	f := k8sinformers.NewSharedInformerFactory(nil, 0)
	factoryType = reflect.TypeOf(f)
	if err := checkStruct(factoryType, "k8s.io/client-go/informers", "sharedInformerFactory", factoryFields); err != nil {
		return err
	}
	// Options are functions of the factory pointer that return it; the
	// fanout factory makes its own with reflect.MakeFunc.
	opt := reflect.TypeFor[k8sinformers.SharedInformerOption]()
	if opt.Kind() != reflect.Func || opt.NumIn() != 1 || opt.In(0) != factoryType || opt.NumOut() != 1 || opt.Out(0) != factoryType {
		return layoutError(fmt.Sprintf("informers.SharedInformerOption is %v, expected func(%v) %v", opt, factoryType, factoryType))
	}
	return nil
}

// checkStruct verifies that t is a pointer to pkg.name with fields.
func checkStruct(t reflect.Type, pkg, name string, fields []field) error {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem().PkgPath() != pkg || t.Elem().Name() != name {
		return layoutError(fmt.Sprintf("expected *%s.%s, found %v", pkg, name, t))
	}
	for _, want := range fields {
		got, ok := t.Elem().FieldByName(want.name)
		if !ok {
			return layoutError(fmt.Sprintf("%s.%s has no field %s", pkg, name, want.name))
		}
		if got.Type != want.typ {
			return layoutError(fmt.Sprintf("%s.%s.%s is %v, expected %v", pkg, name, want.name, got.Type, want.typ))
		}
	}
	return nil
}

// layoutError wraps a layout mismatch with what to do about it.
func layoutError(detail string) error {
	return fmt.Errorf("fanout: client-go's internal layout is not the one fanout's factories were checked on (client-go %s): %s; use client-go %s or a fanout release made for this client-go version", SupportedRange, detail, SupportedRange)
}
