package decode

import (
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kindPlan is what to hide in the protobuf encoding of one kind: in the
// object itself, or, for a list, in each item (field itemsField).
type kindPlan struct {
	object     *msgPlan
	item       *msgPlan
	itemsField uint64
}

// planner compiles and caches the plans of the kinds met.
type planner struct {
	scheme *runtime.Scheme
	paths  [][]string
	cache  sync.Map // "apiVersion kind" -> kindPlan
}

// metaKinds are the kinds of the metadata-only client, which client-go's
// scheme does not register under every group.
var metaKinds = map[string]reflect.Type{
	"PartialObjectMetadata":     reflect.TypeFor[metav1.PartialObjectMetadata](),
	"PartialObjectMetadataList": reflect.TypeFor[metav1.PartialObjectMetadataList](),
}

// forKind returns the plan of the kind an envelope names; the zero plan
// (nothing hidden) for a kind the scheme does not know.
func (pl *planner) forKind(apiVersion, kind string) kindPlan {
	if kind == "" {
		return kindPlan{}
	}
	key := apiVersion + " " + kind
	if p, ok := pl.cache.Load(key); ok {
		return p.(kindPlan)
	}
	p := pl.compile(schema.FromAPIVersionAndKind(apiVersion, kind))
	pl.cache.Store(key, p)
	return p
}

func (pl *planner) compile(gvk schema.GroupVersionKind) kindPlan {
	var t reflect.Type
	if obj, err := pl.scheme.New(gvk); err == nil {
		t = reflect.TypeOf(obj)
	} else if mt, ok := metaKinds[gvk.Kind]; ok && gvk.Group == metav1.GroupName {
		t = mt
	} else {
		return kindPlan{}
	}
	st, ok := structOf(t)
	if !ok {
		return kindPlan{}
	}
	if items, ok := protoFieldByJSON(st, "items"); ok && items.typ.Kind() == reflect.Slice {
		if _, isList := reflect.New(st).Interface().(metav1.ListInterface); isList {
			p := planFor(items.typ.Elem(), pl.paths)
			if p == nil {
				return kindPlan{}
			}
			return kindPlan{item: p, itemsField: items.num}
		}
	}
	return kindPlan{object: planFor(st, pl.paths)}
}
