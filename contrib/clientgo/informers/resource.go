package informers

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// guessResource returns the resource of a built-in object type from
// client-go's scheme, for the informers of client-go v0.35, whose
// generated constructors name no resource. It is zero for a type the
// scheme does not know.
func guessResource(obj runtime.Object) schema.GroupVersionResource {
	if obj == nil {
		return schema.GroupVersionResource{}
	}
	kinds, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil || len(kinds) == 0 {
		return schema.GroupVersionResource{}
	}
	gvk := kinds[0]
	if strings.HasSuffix(gvk.Kind, "Endpoints") {
		// The one built-in kind already plural.
		return gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind))
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	return gvr
}
