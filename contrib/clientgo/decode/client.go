package decode

import (
	"bytes"
	"net/http"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kfanout/fanout/contrib/clientgo/decode/internal/tagjson"
	"github.com/kfanout/fanout/contrib/clientgo/decode/internal/tagproto"
)

// RESTClientFor returns a RESTClient for the group version gv of cfg, as
// the typed client of gv builds it (wrap it with that client's New, such
// as corev1client.New), except that typed objects are decoded by fanout's
// own decoders, in protobuf and in JSON: they read the k8s.io/api types'
// tags and make each repeated string once; the protobuf one also gives
// objects whose encoded parts equal ones it decoded before the same
// values (a sub-message, a list, a map), instead of building them again.
// Objects equal what client-go decodes; where the JSON decoder meets
// input it does not handle, or input client-go would reject, client-go's
// JSON decoder decodes it again and its result or error stands.
//
// Objects from this client share memory with one another and must never
// be modified, not even by an informer's transform (which may set the
// object's fields and those of its metadata, spec and status, but must
// copy a slice, map or pointed-to value before changing what is in it,
// labels included): use it to list and watch for informers, whose cache
// is read-only already, not to read objects you change and send back. To
// share them, the client's decoders keep up to 65,536 strings and 16,384
// values (with at most 32 MiB of their encodings) alive for as long as
// the client lives.
func RESTClientFor(cfg *rest.Config, gv schema.GroupVersion) (*rest.RESTClient, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return restClientFor(cfg, gv, hc)
}

// restClientFor is RESTClientFor over the HTTP client hc.
func restClientFor(cfg *rest.Config, gv schema.GroupVersion, hc *http.Client) (*rest.RESTClient, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &gv
	c.APIPath = "/apis"
	if gv.Group == "" {
		c.APIPath = "/api"
	}
	t := newTables()
	c.NegotiatedSerializer = newNegotiated(scheme.Scheme, rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion(), t)
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	// The typed clients of NewClientset stream their lists through it.
	streaming := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	streaming.Transport = &listTransport{next: next, scheme: scheme.Scheme, tables: t}
	return rest.RESTClientForConfigAndClient(c, &streaming)
}

// negotiated is a client's serializers with the protobuf one's Decode
// replaced by the lean decoder.
type negotiated struct {
	runtime.NegotiatedSerializer
	types []runtime.SerializerInfo
}

func newNegotiated(s *runtime.Scheme, base runtime.NegotiatedSerializer, t *tables) *negotiated {
	n := &negotiated{NegotiatedSerializer: base}
	for _, info := range base.SupportedMediaTypes() {
		switch {
		case info.Serializer == nil:
		case info.MediaType == runtime.ContentTypeProtobuf:
			info.Serializer = &leanSerializer{Serializer: info.Serializer, scheme: s, tables: t}
		case info.MediaType == runtime.ContentTypeJSON:
			info.Serializer = &leanJSONSerializer{Serializer: info.Serializer, scheme: s, tables: t}
		}
		n.types = append(n.types, info)
	}
	return n
}

func (n *negotiated) SupportedMediaTypes() []runtime.SerializerInfo { return n.types }

// tables are the string table and the shared values of one client,
// used by one decode at a time, and made by the first.
type tables struct {
	mu    sync.Mutex
	proto *tagproto.Decoder
	json  *tagjson.Decoder
}

func newTables() *tables { return &tables{} }

// make makes the decoders at their first use; t.mu is held.
func (t *tables) make() {
	if t.proto == nil {
		strings := tagproto.NewTable(1 << 16).String
		t.proto = &tagproto.Decoder{Strings: strings, Values: tagproto.NewValues(1 << 14)}
		t.json = &tagjson.Decoder{Strings: strings}
	}
}

// unmarshal decodes the protobuf message b into obj with the client's
// tables.
func (t *tables) unmarshal(b []byte, obj any) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.make()
	return t.proto.Unmarshal(b, obj)
}

// unmarshalJSON decodes the JSON text b into obj, a zero value, with the
// client's string table.
func (t *tables) unmarshalJSON(b []byte, obj any) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.make()
	return t.json.Unmarshal(b, obj)
}

// unmarshalObject decodes the JSON object b into unstructured content with
// the client's string table.
func (t *tables) unmarshalObject(b []byte) (map[string]any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.make()
	return t.json.UnmarshalObject(b)
}

// protobufPrefix starts every protobuf-enveloped Kubernetes object.
var protobufPrefix = []byte{0x6b, 0x38, 0x73, 0x00}

// leanSerializer is the protobuf serializer whose Decode builds registered
// objects with the lean decoder; every other case, and encoding, is the
// serializer's own.
type leanSerializer struct {
	runtime.Serializer
	scheme *runtime.Scheme
	tables *tables
}

// Decode decodes a protobuf-enveloped object as the protobuf serializer
// does, with the same checks, defaults and errors, building the object
// with the lean decoder.
func (s *leanSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if len(data) <= len(protobufPrefix) || !bytes.HasPrefix(data, protobufPrefix) {
		return s.Serializer.Decode(data, defaults, into)
	}
	if _, ok := into.(*runtime.Unknown); ok {
		return s.Serializer.Decode(data, defaults, into)
	}
	// The envelope's Raw points into data: a list is not held twice.
	var unk runtime.Unknown
	if err := tagproto.UnmarshalEnvelope(data[len(protobufPrefix):], &unk); err != nil {
		return nil, nil, err
	}
	actual := unk.GroupVersionKind()
	kindDefaults(&actual, defaults)
	if into != nil {
		kinds, _, err := s.scheme.ObjectKinds(into)
		if err != nil {
			// Unregistered targets and typing errors: the serializer's own path.
			return s.Serializer.Decode(data, defaults, into)
		}
		kindDefaults(&actual, &kinds[0])
		if len(actual.Version) == 0 && len(actual.Group) == 0 {
			actual.Group = kinds[0].Group
		}
	}
	if len(actual.Kind) == 0 || len(actual.Version) == 0 {
		return s.Serializer.Decode(data, defaults, into)
	}
	obj, err := runtime.UseOrCreateObject(s.scheme, s.scheme, actual, into)
	if err != nil {
		return nil, &actual, err
	}
	r, ok := obj.(interface{ Reset() })
	if !ok {
		return s.Serializer.Decode(data, defaults, into)
	}
	r.Reset()
	if err := s.tables.unmarshal(unk.Raw, obj); err != nil {
		return nil, &actual, err
	}
	obj.GetObjectKind().SetGroupVersionKind(actual)
	return obj, &actual, nil
}

// kindDefaults fills dst's missing kind and version from src, as the
// protobuf serializer does.
func kindDefaults(dst, src *schema.GroupVersionKind) {
	if src == nil {
		return
	}
	if len(dst.Kind) == 0 {
		dst.Kind = src.Kind
	}
	if len(dst.Version) == 0 && len(src.Version) > 0 {
		dst.Group, dst.Version = src.Group, src.Version
	}
}
