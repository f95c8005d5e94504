package decode

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// chunkedAPI serves body to every request, a few bytes per read, and
// counts the requests.
func chunkedAPI(body []byte, chunk int, requests *atomic.Int64) *rest.Config {
	return &rest.Config{Host: "http://fake", ContentConfig: rest.ContentConfig{ContentType: protoType},
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			requests.Add(1)
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {protoType}},
				Body: io.NopCloser(&chunkReader{b: body, size: chunk}), Request: r}, nil
		})}
}

// TestNewClientsetStreamsLists lists Pods through a Clientset, the body
// read a few bytes at a time, and requires client-go's list in one
// request, decoded while it streamed: the typed client under the
// wrapper, given the streaming context, returns the empty list client-go
// decoded from the body it was given, and the target holds the list.
func TestNewClientsetStreamsLists(t *testing.T) {
	pods := randomPods(7, 40)
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "12", Continue: "c"}, Items: pods}
	for _, chunk := range []int{1, 7, 4096} {
		var requests atomic.Int64
		cfg := chunkedAPI(protoBody(t, list), chunk, &requests)
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
		requireEqual(t, "streamed list", want, got)
		if n := requests.Load(); n != 1 {
			t.Fatalf("chunk %d: %d requests for one list: the stream fell back", chunk, n)
		}
		if shared, pairs := sharedContainers(got.Items); pairs < 5 || shared < pairs-1 {
			t.Fatalf("%d of %d pairs of equal containers shared: not built by the lean decoder", shared, pairs)
		}
		target := &listTarget{into: &corev1.PodList{}}
		inner := cs.CoreV1().(streamingCoreV1).CoreV1Interface.Pods("")
		seen, err := inner.List(context.WithValue(context.Background(), listTargetKey{}, target), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen.Items) != 0 || target.fallback || target.obj == nil {
			t.Fatalf("client-go decoded %d items (fallback %v): the list did not stream", len(seen.Items), target.fallback)
		}
		requireEqual(t, "target", want, target.obj)
	}
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
		cs, err := NewClientset(chunkedAPI(protoBody(t, &corev1.ConfigMapList{Items: items}), 4096, &requests))
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

// TestNewClientsetListsDamaged cuts and corrupts protobuf list bodies and
// requires a Clientset's lists and errors to be client-go's.
func TestNewClientsetListsDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	pods := randomPods(13, 6)
	list := protoBody(t, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}, Items: pods})
	stream := watchBody(t, protoType, podEvents(pods)...)
	requireSameDamaged(t, r, protoType, list, stream, 200, func(cfg *rest.Config) (podSource, podSource) {
		cs, err := NewClientset(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return typedSource(kubernetes.NewForConfigOrDie(cfg).CoreV1()), typedSource(cs.CoreV1())
	})
}

// FuzzStreamedList lists arbitrary protobuf bodies, read in chunks of any
// size, through a Clientset and through client-go's clientset, and
// requires the same list or the same error. The clients are made once
// (a Clientset keeps its tables from list to list, as an informer's does).
func FuzzStreamedList(f *testing.F) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.Pod{*samplePod("a"), *samplePod("b")}}
	for _, chunk := range []uint8{0, 1, 13} {
		f.Add(chunk, protoBody(f, list))
		f.Add(chunk, protoBody(f, &corev1.PodList{}))
		f.Add(chunk, protoBody(f, samplePod("x")))
	}
	type input struct {
		body  []byte
		chunk int
	}
	var in atomic.Pointer[input]
	cfg := &rest.Config{Host: "http://fake", ContentConfig: rest.ContentConfig{ContentType: protoType},
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			i := in.Load()
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {protoType}},
				Body: io.NopCloser(&chunkReader{b: i.body, size: i.chunk}), Request: r}, nil
		})}
	cg := kubernetes.NewForConfigOrDie(cfg).CoreV1()
	cs, err := NewClientset(cfg)
	if err != nil {
		f.Fatal(err)
	}
	lean := cs.CoreV1()
	f.Fuzz(func(t *testing.T, chunk uint8, body []byte) {
		in.Store(&input{body: body, chunk: int(chunk) + 1})
		want, werr := cg.Pods("").List(context.Background(), metav1.ListOptions{})
		got, gerr := lean.Pods("").List(context.Background(), metav1.ListOptions{})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("errors: client-go %v, lean %v", werr, gerr)
		}
		if werr == nil {
			requireEqual(t, "list", runtime.Object(want), runtime.Object(got))
		}
	})
}
