package decode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"
)

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// chunkReader returns its bytes a few at a time, so that the filter meets
// every boundary.
type chunkReader struct {
	b    []byte
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.size, len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// filter runs body through a transport with o as a response of media type
// ct to a GET (a watch if watch), reading it in chunks of chunk bytes.
func filter(t testing.TB, o Options, ct string, watchReq bool, body []byte, chunk int) ([]byte, error) {
	t.Helper()
	rt := NewTransport(roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}},
			Body: io.NopCloser(&chunkReader{b: body, size: chunk})}, nil
	}), o)
	u := &url.URL{Scheme: "http", Host: "x", Path: "/api/v1/pods"}
	if watchReq {
		u.RawQuery = "watch=true"
	}
	resp, err := rt.RoundTrip(&http.Request{Method: http.MethodGet, URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// protoBody returns obj enveloped as a protobuf response body.
func protoBody(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), protoType)
	var buf bytes.Buffer
	if err := info.Serializer.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jsonBody returns obj as a JSON response body.
func jsonBody(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), jsonType)
	var buf bytes.Buffer
	if err := info.Serializer.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// watchBody returns events as a watch stream in media type mt, encoded as
// the apiserver does.
func watchBody(t testing.TB, mt string, events ...watch.Event) []byte {
	t.Helper()
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mt)
	var buf bytes.Buffer
	for _, e := range events {
		var obj bytes.Buffer
		if err := info.Serializer.Encode(e.Object, &obj); err != nil {
			t.Fatal(err)
		}
		ev := &metav1.WatchEvent{Type: string(e.Type), Object: runtime.RawExtension{Raw: obj.Bytes()}}
		if mt == protoType {
			b, err := ev.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(b))))
			buf.Write(b)
			continue
		}
		if err := info.StreamSerializer.Serializer.Encode(ev, &buf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// decodeBody decodes a response body of media type mt as client-go's
// REST client does: with the serializer of the response's Content-Type
// only, so a protobuf body sent as JSON fails as JSON (a universal
// deserializer would sniff it and decode it as protobuf).
func decodeBody(mt string, body []byte) (runtime.Object, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mt)
	if !ok {
		return nil, fmt.Errorf("no serializer for %q", mt)
	}
	obj, _, err := info.Serializer.Decode(body, nil, nil)
	return obj, err
}

// decodeWatch decodes a watch stream of media type mt as client-go's
// REST client does, until the first error.
func decodeWatch(mt string, body []byte) ([]watch.Event, error) {
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mt)
	fr := info.StreamSerializer.Framer.NewFrameReader(io.NopCloser(bytes.NewReader(body)))
	d := restclientwatch.NewDecoder(streaming.NewDecoder(fr, info.StreamSerializer.Serializer), scheme.Codecs.UniversalDeserializer())
	var out []watch.Event
	for {
		typ, obj, err := d.Decode()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		out = append(out, watch.Event{Type: typ, Object: obj})
	}
}

// samplePod is a Pod with managedFields, labels and annotations.
func samplePod(name string) *corev1.Pod {
	ts := metav1.Unix(1700000000, 0)
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", ResourceVersion: "7",
			Labels:      map[string]string{"app": "web"},
			Annotations: map[string]string{"a": "1", "kubectl.kubernetes.io/last-applied-configuration": "{}"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: "v1", Time: &ts, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)}}},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}, NodeName: "n1"},
	}
}
