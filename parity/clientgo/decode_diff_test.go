package parity

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"

	"github.com/kfanout/fanout/contrib/clientgo/decode"
)

// TestDecodeDifferential generates random objects of every built-in kind
// client-go's scheme registers (k8s.io/api, with apimachinery's fuzzer
// functions so that they encode), encodes each as the apiserver does in
// both codecs (alone, in a list, and as watch events), filters the bodies
// through contrib/clientgo/decode with DropManagedFields and a dropped
// annotation, and checks that client-go's decoder builds from the
// filtered body exactly (apiequality) what it builds from the original,
// less the dropped fields.
func TestDecodeDifferential(t *testing.T) {
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	const dropKey = "drop.example.com/me"
	o := decode.Options{DropManagedFields: true, DropFields: [][]string{{"metadata", "annotations", dropKey}}}
	strip := func(obj runtime.Object) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return
		}
		m.SetManagedFields(nil)
		if a := m.GetAnnotations(); a != nil {
			delete(a, dropKey)
			m.SetAnnotations(a)
		}
	}
	kinds := builtinKinds(t)
	if len(kinds) < 100 {
		t.Fatalf("only %d built-in kinds with metadata found", len(kinds))
	}
	var compared, dropped int
	for _, gvk := range kinds {
		for seed := range seeds {
			f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(int64(seed)*7919+int64(len(gvk.Kind))), scheme.Codecs).NilChance(0.2).NumElements(0, 2)
			obj, _ := scheme.Scheme.New(gvk)
			f.Fill(obj)
			obj.GetObjectKind().SetGroupVersionKind(gvk)
			m, _ := meta.Accessor(obj)
			if len(m.GetManagedFields()) == 0 {
				var e metav1.ManagedFieldsEntry
				f.Fill(&e)
				m.SetManagedFields([]metav1.ManagedFieldsEntry{e})
			}
			a := m.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			a[dropKey] = "x"
			m.SetAnnotations(a)
			list, err := listOf(gvk, obj)
			if err != nil {
				t.Fatal(err)
			}
			for _, mt := range []string{"application/vnd.kubernetes.protobuf", "application/json"} {
				name := fmt.Sprintf("%s %s seed %d", gvk, mt, seed)
				for _, in := range []runtime.Object{obj, list} {
					body, err := encodeBody(mt, in)
					if err != nil {
						t.Fatalf("%s: encoding: %v", name, err)
					}
					want, err := decodeBody(body)
					if err != nil {
						t.Fatalf("%s: client-go cannot decode the original: %v", name, err)
					}
					eachObject(want, strip)
					got, err := decodeBody(filterBody(t, o, mt, false, body))
					if err != nil {
						t.Fatalf("%s: decoding the filtered body: %v", name, err)
					}
					if !apiequality.Semantic.DeepEqual(got, want) {
						t.Fatalf("%s: filtered decode differs from client-go's less the dropped fields:\n%#v\n%#v", name, got, want)
					}
					eachObject(got, func(o runtime.Object) {
						if m, _ := meta.Accessor(o); len(m.GetManagedFields()) == 0 {
							dropped++
						}
					})
					compared++
				}
				stream, err := watchStream(mt, obj, obj)
				if err != nil {
					t.Fatalf("%s: encoding the watch: %v", name, err)
				}
				want, err := decodeStream(mt, stream)
				if err != nil || len(want) != 2 {
					t.Fatalf("%s: client-go's watch decode: %d events, %v", name, len(want), err)
				}
				got, err := decodeStream(mt, filterBody(t, o, mt+";stream=watch", true, stream))
				if err != nil || len(got) != 2 {
					t.Fatalf("%s: filtered watch decode: %d events, %v", name, len(got), err)
				}
				for i := range want {
					strip(want[i].Object)
					if !apiequality.Semantic.DeepEqual(got[i].Object, want[i].Object) {
						t.Fatalf("%s: watch event %d differs:\n%#v\n%#v", name, i, got[i].Object, want[i].Object)
					}
				}
				compared++
			}
		}
	}
	t.Logf("%d kinds, %d bodies compared, %d objects decoded without managedFields", len(kinds), compared, dropped)
}

// builtinKinds returns every external kind of client-go's scheme that is
// an object with metadata (not a list, not an options type).
func builtinKinds(t *testing.T) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for gvk, typ := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || !strings.HasPrefix(typ.PkgPath(), "k8s.io/api/") {
			continue
		}
		obj := reflect.New(typ).Interface().(runtime.Object)
		if meta.IsListType(obj) {
			continue
		}
		if _, err := meta.Accessor(obj); err != nil {
			continue
		}
		if _, err := scheme.Scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List")); err != nil {
			continue
		}
		out = append(out, gvk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// listOf returns a list of kind gvk's list holding obj twice.
func listOf(gvk schema.GroupVersionKind, obj runtime.Object) (runtime.Object, error) {
	lgvk := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	list, err := scheme.Scheme.New(lgvk)
	if err != nil {
		return nil, err
	}
	list.GetObjectKind().SetGroupVersionKind(lgvk)
	if err := meta.SetList(list, []runtime.Object{obj, obj.DeepCopyObject()}); err != nil {
		return nil, err
	}
	return list, nil
}

// eachObject calls fn with obj, or with each item of a list.
func eachObject(obj runtime.Object, fn func(runtime.Object)) {
	if meta.IsListType(obj) {
		_ = meta.EachListItem(obj, func(o runtime.Object) error { fn(o); return nil })
		return
	}
	fn(obj)
}

func serializer(mt string) runtime.SerializerInfo {
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mt)
	return info
}

// encodeBody encodes obj as a response body of media type mt.
func encodeBody(mt string, obj runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	err := serializer(mt).Serializer.Encode(obj, &buf)
	return buf.Bytes(), err
}

// watchStream encodes objs as ADDED events of a watch stream, as the
// apiserver does.
func watchStream(mt string, objs ...runtime.Object) ([]byte, error) {
	info := serializer(mt)
	var buf bytes.Buffer
	for _, o := range objs {
		raw, err := encodeBody(mt, o)
		if err != nil {
			return nil, err
		}
		ev := &metav1.WatchEvent{Type: string(watch.Added), Object: runtime.RawExtension{Raw: raw}}
		if strings.Contains(mt, "protobuf") {
			b, err := ev.Marshal()
			if err != nil {
				return nil, err
			}
			buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(b))))
			buf.Write(b)
			continue
		}
		if err := info.StreamSerializer.Serializer.Encode(ev, &buf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// decodeBody decodes a body as client-go's REST client does.
func decodeBody(body []byte) (runtime.Object, error) {
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	return obj, err
}

// decodeStream decodes a watch stream as client-go's REST client does.
func decodeStream(mt string, body []byte) ([]watch.Event, error) {
	info := serializer(mt)
	fr := info.StreamSerializer.Framer.NewFrameReader(io.NopCloser(bytes.NewReader(body)))
	d := restclientwatch.NewDecoder(streaming.NewDecoder(fr, info.StreamSerializer.Serializer), scheme.Codecs.UniversalDeserializer())
	var out []watch.Event
	for {
		typ, obj, err := d.Decode()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, watch.Event{Type: typ, Object: obj})
	}
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// filterBody runs body through decode's transport as the response of
// media type ct to a GET (a watch if watchReq).
func filterBody(t *testing.T, o decode.Options, ct string, watchReq bool, body []byte) []byte {
	t.Helper()
	rt := decode.NewTransport(rtFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(body))}, nil
	}), o)
	u := &url.URL{Scheme: "http", Host: "x", Path: "/x"}
	if watchReq {
		u.RawQuery = "watch=true"
	}
	resp, err := rt.RoundTrip(&http.Request{Method: http.MethodGet, URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
