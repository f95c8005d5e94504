package clientgo

import (
	"reflect"
	"strings"

	"k8s.io/client-go/tools/cache"
)

// unwrapTyped returns the informer behind client-go's typed wrappers
// (cache.NewTypedSharedIndexInformer, which the generated Informer()
// methods of client-go v0.36+ return), or inf itself. The wrapper embeds
// the informer as its exported field SharedIndexInformer; nothing else of
// it is read.
func unwrapTyped(inf cache.SharedIndexInformer) cache.SharedIndexInformer {
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
		if !inner.IsValid() || !inner.CanInterface() || inner.Type() != reflect.TypeFor[cache.SharedIndexInformer]() {
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
