package decode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// chunkedAPI serves body, of media type ct, to every request, a few
// bytes per read, and counts the requests.
func chunkedAPI(ct string, body []byte, chunk int, requests *atomic.Int64) *rest.Config {
	return &rest.Config{Host: "http://fake", ContentConfig: rest.ContentConfig{ContentType: ct},
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			requests.Add(1)
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}},
				Body: io.NopCloser(&chunkReader{b: body, size: chunk}), Request: r}, nil
		})}
}

// TestNewClientsetStreamsLists lists Pods through a Clientset, in each
// codec, the body read a few bytes at a time, and requires client-go's
// list in one request, decoded while it streamed: the typed client under
// the wrapper, given the streaming context, returns the empty list
// client-go decoded from the body it was given, and the target holds the
// list.
func TestNewClientsetStreamsLists(t *testing.T) {
	pods := randomPods(7, 40)
	for _, ct := range codecs {
		for _, list := range []*corev1.PodList{
			{ListMeta: metav1.ListMeta{ResourceVersion: "12", Continue: "c"}, Items: pods},
			{ListMeta: metav1.ListMeta{ResourceVersion: "13"}},
			{Items: []corev1.Pod{}},
		} {
			for _, chunk := range []int{1, 7, 4096} {
				streamsAsClientGo(t, ct, body(t, ct, list), chunk)
			}
		}
		// Members in another order, and whitespace.
		if ct == jsonType {
			b := body(t, ct, &corev1.PodList{Items: pods[:3]})
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			reordered := fmt.Appendf(nil, "\n{ \"items\" : %s ,\n \"metadata\":%s, \"apiVersion\":\"v1\" ,\"kind\":\"PodList\"}\n", m["items"], m["metadata"])
			streamsAsClientGo(t, ct, reordered, 5)
		}
	}
}

// streamsAsClientGo requires a Clientset's list of body to be client-go's,
// made while it streamed.
func streamsAsClientGo(t *testing.T, ct string, b []byte, chunk int) {
	t.Helper()
	var requests atomic.Int64
	cfg := chunkedAPI(ct, b, chunk, &requests)
	want, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewClientset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	requests.Store(0)
	got, err := cs.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, ct+" streamed list", want, got)
	if n := requests.Load(); n != 1 {
		t.Fatalf("%s, chunk %d: %d requests for one list: the stream fell back", ct, chunk, n)
	}
	if shared, pairs := sharedParts(ct, got.Items); shared < pairs*9/10 {
		t.Fatalf("%s: %d of %d pairs share: not built by the lean decoder", ct, shared, pairs)
	}
	target := &listTarget{into: &corev1.PodList{}}
	inner := cs.CoreV1().(streamingCoreV1).CoreV1Interface.Pods("")
	seen, err := inner.List(context.WithValue(context.Background(), listTargetKey{}, target), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen.Items) != 0 || target.fallback || target.obj == nil {
		t.Fatalf("%s: client-go decoded %d items (fallback %v): the list did not stream", ct, len(seen.Items), target.fallback)
	}
	requireEqual(t, ct+" target", want, target.obj)
}

// TestStreamedItemsSizedFromBytes requires the items of a streamed list
// made at about their final size from the bytes read: no more than a
// sixteenth spare.
func TestStreamedItemsSizedFromBytes(t *testing.T) {
	for _, n := range []int{1, 2, 17, 1000} {
		items := make([]corev1.ConfigMap, n)
		for i := range items {
			items[i].Name = "cm"
			items[i].Data = map[string]string{"k": string(bytes.Repeat([]byte("v"), i%50))}
		}
		var requests atomic.Int64
		cs, err := NewClientset(chunkedAPI(protoType, protoBody(t, &corev1.ConfigMapList{Items: items}), 4096, &requests))
		if err != nil {
			t.Fatal(err)
		}
		got, err := cs.CoreV1().ConfigMaps("").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Items) != n || cap(got.Items) > n+n/16 {
			t.Fatalf("%d items: got %d with capacity %d", n, len(got.Items), cap(got.Items))
		}
	}
}

// TestNewClientsetListsDamaged cuts and corrupts list bodies, in each
// codec, and requires a Clientset's lists and errors to be client-go's.
func TestNewClientsetListsDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	pods := randomPods(13, 6)
	for _, ct := range codecs {
		list := body(t, ct, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}, Items: pods})
		stream := watchBody(t, ct, podEvents(pods)...)
		requireSameDamaged(t, r, ct, list, stream, 200, func(cfg *rest.Config) (podSource, podSource) {
			cs, err := NewClientset(cfg)
			if err != nil {
				t.Fatal(err)
			}
			return typedSource(kubernetes.NewForConfigOrDie(cfg).CoreV1()), typedSource(cs.CoreV1())
		})
	}
}

// FuzzStreamedList lists arbitrary bodies, protobuf or JSON (json set),
// read in chunks of any size, through a Clientset and through client-go's
// clientset, and requires the same list or the same error. The clients
// are made once (a Clientset keeps its tables from list to list, as an
// informer's does).
func FuzzStreamedList(f *testing.F) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.Pod{*samplePod("a"), *samplePod("b")}}
	for _, chunk := range []uint8{0, 1, 13} {
		for _, ct := range codecs {
			j := ct == jsonType
			f.Add(j, chunk, body(f, ct, list))
			f.Add(j, chunk, body(f, ct, &corev1.PodList{}))
			f.Add(j, chunk, body(f, ct, samplePod("x")))
		}
	}
	f.Add(true, uint8(3), []byte(`{"items":[{"metadata":{"name":"a"}},{}],"kind":"PodList","apiVersion":"v1","metadata":{}}`))
	type input struct {
		ct    string
		body  []byte
		chunk int
	}
	var in atomic.Pointer[input]
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		i := in.Load()
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {i.ct}},
			Body: io.NopCloser(&chunkReader{b: i.body, size: i.chunk}), Request: r}, nil
	})
	type clients struct{ clientGo, lean corev1client.CoreV1Interface }
	byCodec := map[string]clients{}
	for _, ct := range codecs {
		// No client-side rate limit: the clients serve every input.
		cfg := &rest.Config{Host: "http://fake", ContentConfig: rest.ContentConfig{ContentType: ct}, Transport: rt, QPS: -1}
		cs, err := NewClientset(cfg)
		if err != nil {
			f.Fatal(err)
		}
		byCodec[ct] = clients{kubernetes.NewForConfigOrDie(cfg).CoreV1(), cs.CoreV1()}
	}
	f.Fuzz(func(t *testing.T, json bool, chunk uint8, b []byte) {
		ct := protoType
		if json {
			ct = jsonType
		}
		in.Store(&input{ct: ct, body: b, chunk: int(chunk) + 1})
		c := byCodec[ct]
		want, werr := c.clientGo.Pods("").List(context.Background(), metav1.ListOptions{})
		got, gerr := c.lean.Pods("").List(context.Background(), metav1.ListOptions{})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("errors: client-go %v, lean %v", werr, gerr)
		}
		if werr == nil {
			requireEqual(t, "list", runtime.Object(want), runtime.Object(got))
		}
	})
}
