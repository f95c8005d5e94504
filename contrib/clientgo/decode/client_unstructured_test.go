package decode

import (
	"context"
	"math/rand/v2"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

var podsResource = corev1.SchemeGroupVersion.WithResource("pods")

// dynamicSource lists and watches all Pods, as unstructured objects,
// with c.
func dynamicSource(c dynamic.Interface) podSource {
	return podSource{
		list: func(ctx context.Context) (runtime.Object, error) {
			return c.Resource(podsResource).List(ctx, metav1.ListOptions{})
		},
		watch: func(ctx context.Context) (watch.Interface, error) {
			return c.Resource(podsResource).Watch(ctx, metav1.ListOptions{})
		},
	}
}

func leanDynamic(t *testing.T, cfg *rest.Config) dynamic.Interface {
	t.Helper()
	c, err := DynamicClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// withStatus appends an error event carrying a Status, which the dynamic
// client decodes as a typed metav1.Status.
func withStatus(evs []watch.Event) []watch.Event {
	return append(evs, watch.Event{Type: watch.Error, Object: &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired}})
}

// TestDynamicClientForDecodesAsClientGo lists and watches random Pods,
// as unstructured objects, with client-go's dynamic client and with one
// of DynamicClientFor, and requires the same list and events (an error
// event's Status included), and that the lean items share their keys'
// bytes.
func TestDynamicClientForDecodesAsClientGo(t *testing.T) {
	shared, pairs := 0, 0
	for seed := range int64(6) {
		pods := randomPods(seed, 30)
		cfg := fakeAPI(jsonType, jsonBody(t, &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: pods}),
			watchBody(t, jsonType, withStatus(podEvents(pods))...))
		std, err := dynamic.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		wantList, wantEvents, werr := listAndWatch(t, dynamicSource(std))
		gotList, gotEvents, gerr := listAndWatch(t, dynamicSource(leanDynamic(t, cfg)))
		if werr != nil || gerr != nil {
			t.Fatalf("list errors: client-go %v, lean %v", werr, gerr)
		}
		requireEqual(t, "list", wantList, gotList)
		requireEqual(t, "events", wantEvents, gotEvents)
		if _, ok := gotEvents[len(gotEvents)-1].Object.(*metav1.Status); !ok {
			t.Fatalf("the error event holds %T, want *metav1.Status", gotEvents[len(gotEvents)-1].Object)
		}
		items := gotList.(*unstructured.UnstructuredList).Items
		for i := 1; i < len(items); i++ {
			pairs++
			if sameKeyBytes(items[i-1].Object, items[i].Object, "metadata") {
				shared++
			}
		}
	}
	// The string table is a cache of paired slots under a random seed: a
	// key can be evicted by two later strings of its pair and made again,
	// as in the typed test; nine tenths must share.
	if pairs < 100 || shared < pairs*9/10 {
		t.Fatalf("%d of %d pairs of items share their keys' bytes", shared, pairs)
	}
}

// sameKeyBytes reports whether the key k of a and b is one string in
// memory.
func sameKeyBytes(a, b map[string]any, k string) bool {
	var ka, kb string
	for key := range a {
		if key == k {
			ka = key
		}
	}
	for key := range b {
		if key == k {
			kb = key
		}
	}
	return ka != "" && unsafe.StringData(ka) == unsafe.StringData(kb)
}

// TestDynamicClientForLists decodes lists client-go's unstructured
// decoding treats specially (items null, absent, holding a null or a
// number, an item with its own kind, no kind at all, a typed kind) both
// ways, and requires the same result or the same error.
func TestDynamicClientForLists(t *testing.T) {
	for _, body := range []string{
		`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}`,
		`{"kind":"PodList","apiVersion":"v1","metadata":{}}`,
		`{"kind":"PodList","apiVersion":"v1","items":[null]}`,
		`{"kind":"PodList","apiVersion":"v1","items":[1]}`,
		`{"kind":"PodList","apiVersion":"v1","items":{}}`,
		`{"kind":"WidgetList","apiVersion":"x.io/v1","items":[{"kind":"Gadget","metadata":{"name":"a"}},{"apiVersion":"y/v2"},{}]}`,
		`{"apiVersion":"v1","items":[]}`,
		`{"kind":"","apiVersion":"v1","items":[]}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`,
		`{"kind":5,"apiVersion":"v1","items":[]}`,
		`{"Kind":"PodList","apiVersion":"v1","items":[]}`,
		`{"kind":"PodList","apiVersion":"v1","items":[{"a":1e400}]}`,
		`{"kind":"PodList","apiVersion":"v1","items":[{"a":1.5,"b":12345678901234567890,"c":-0,"d":"\u00e9\ud83d\ude00"}]}`,
		`{"kind":"PodList","apiVersion":"v1","items":[]} x`,
	} {
		cfg := fakeAPI(jsonType, []byte(body), nil)
		std, err := dynamic.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := std.Resource(podsResource).List(context.Background(), metav1.ListOptions{})
		got, gerr := leanDynamic(t, cfg).Resource(podsResource).List(context.Background(), metav1.ListOptions{})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%s: client-go %v, lean %v", body, werr, gerr)
		}
		requireEqual(t, body, want, got)
	}
}

// TestDynamicClientForDamaged cuts and corrupts list and watch bodies and
// requires the same errors and the same objects from both dynamic
// clients.
func TestDynamicClientForDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	pods := randomPods(12, 6)
	list := jsonBody(t, &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: pods})
	stream := watchBody(t, jsonType, withStatus(podEvents(pods))...)
	requireSameDamaged(t, r, jsonType, list, stream, 300, func(cfg *rest.Config) (podSource, podSource) {
		std, err := dynamic.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return dynamicSource(std), dynamicSource(leanDynamic(t, cfg))
	})
}
