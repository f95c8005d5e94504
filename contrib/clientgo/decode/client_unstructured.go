package decode

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// DynamicClientFor returns a dynamic client for cfg, as
// dynamic.NewForConfig builds it, except that unstructured objects are
// decoded from JSON by fanout's decoder, which makes each repeated string
// (keys included) once and decodes a list's items once (client-go's
// decodes them twice). Objects equal what client-go decodes; where the
// decoder meets input client-go would reject, or kinds client-go decodes
// as typed objects (metav1.Status), client-go's decoder decodes it again
// and its result or error stands.
//
// As with RESTClientFor, objects from it share memory (the client keeps
// up to 65,536 strings alive while it lives) and must never be modified,
// not even by an informer's transform below the object's top-level map:
// give it to dynamic informers, not to code that changes what it reads.
func DynamicClientFor(cfg *rest.Config) (*dynamic.DynamicClient, error) {
	c := dynamic.ConfigFor(cfg)
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		return nil, err
	}
	c.NegotiatedSerializer = newUnstructuredNegotiated(c.NegotiatedSerializer)
	c.GroupVersion = nil
	c.APIPath = "/if-you-see-this-search-for-the-break" // dynamic.NewForConfigAndClient's: the client builds absolute paths
	rc, err := rest.UnversionedRESTClientForConfigAndClient(c, hc)
	if err != nil {
		return nil, err
	}
	return dynamic.New(rc), nil
}

// newUnstructuredNegotiated is the dynamic client's serializers with the
// JSON one's Decode replaced by the lean one.
func newUnstructuredNegotiated(base runtime.NegotiatedSerializer) *negotiated {
	n := &negotiated{NegotiatedSerializer: base}
	t := newTables()
	typed := runtime.NewScheme()
	metav1.AddToGroupVersion(typed, schema.GroupVersion{Version: "v1"})
	for _, info := range base.SupportedMediaTypes() {
		if info.MediaType == runtime.ContentTypeJSON && info.Serializer != nil {
			info.Serializer = &leanUnstructuredSerializer{Serializer: info.Serializer, typed: typed, tables: t}
		}
		n.types = append(n.types, info)
	}
	return n
}

// leanUnstructuredSerializer is the dynamic client's JSON serializer whose
// Decode builds unstructured objects and lists with the lean JSON decoder;
// every other case is the serializer's own.
type leanUnstructuredSerializer struct {
	runtime.Serializer
	typed  *runtime.Scheme // the kinds the dynamic client decodes as typed objects
	tables *tables
}

// Decode decodes a JSON object into an Unstructured or an
// UnstructuredList as the dynamic client's serializer does, with the same
// kind, defaults and result; wherever that is not plain, the serializer
// decodes it, and its result or error stands.
func (s *leanUnstructuredSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	actual, ok := topKind(data)
	if !ok {
		return s.Serializer.Decode(data, defaults, into)
	}
	var obj runtime.Object
	switch x := into.(type) {
	case nil:
		if defaults != nil {
			actual = jsonKindDefaults(actual, *defaults)
		}
		if len(actual.Kind) == 0 || len(actual.Version) == 0 {
			break
		}
		if _, err := s.typed.New(actual); err == nil {
			break
		}
		if m, err := s.tables.unmarshalObject(data); err == nil {
			obj = &unstructured.Unstructured{Object: m}
		}
	case *unstructured.Unstructured:
		if x.Object != nil {
			break
		}
		if m, err := s.tables.unmarshalObject(data); err == nil {
			x.Object = m
			obj = x
		}
	case *unstructured.UnstructuredList:
		if x.Object != nil || x.Items != nil {
			break
		}
		if m, err := s.tables.unmarshalObject(data); err == nil && splitList(m, x) {
			obj = x
		} else {
			x.Object, x.Items = nil, nil
		}
	}
	if obj == nil || len(obj.GetObjectKind().GroupVersionKind().Kind) == 0 {
		if obj != nil && obj == into {
			clearUnstructured(into)
		}
		return s.Serializer.Decode(data, defaults, into)
	}
	if into != nil {
		actual = obj.GetObjectKind().GroupVersionKind()
	}
	return obj, &actual, nil
}

// splitList makes the decoded list m into list as client-go's unstructured
// decoding does: the items, each an object, become list.Items, given the
// list's apiVersion and its kind less "List" when they have neither, and
// the rest is list.Object. It reports false for items client-go decodes
// otherwise (not an array, an item not an object).
func splitList(m map[string]any, list *unstructured.UnstructuredList) bool {
	raw, _ := m["items"].([]any)
	if m["items"] != nil && raw == nil {
		return false
	}
	delete(m, "items")
	list.Object = m
	apiVersion, itemKind := list.GetAPIVersion(), strings.TrimSuffix(list.GetKind(), "List")
	list.Items = make([]unstructured.Unstructured, 0, len(raw))
	for _, it := range raw {
		om, ok := it.(map[string]any)
		if !ok {
			return false
		}
		u := unstructured.Unstructured{Object: om}
		if len(u.GetKind()) == 0 && len(u.GetAPIVersion()) == 0 {
			u.SetKind(itemKind)
			u.SetAPIVersion(apiVersion)
		}
		list.Items = append(list.Items, u)
	}
	return true
}

// clearUnstructured empties an Unstructured or UnstructuredList the lean
// decoder filled, before client-go's decoder decodes into it.
func clearUnstructured(obj runtime.Object) {
	switch x := obj.(type) {
	case *unstructured.Unstructured:
		x.Object = nil
	case *unstructured.UnstructuredList:
		x.Object, x.Items = nil, nil
	}
}
