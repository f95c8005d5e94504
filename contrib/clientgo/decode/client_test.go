package decode

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/randfill"
)

// codecs are the media types the lean clients decode themselves.
var codecs = []string{protoType, jsonType}

// body returns obj as a response body of media type ct.
func body(t testing.TB, ct string, obj runtime.Object) []byte {
	if ct == protoType {
		return protoBody(t, obj)
	}
	return jsonBody(t, obj)
}

// fakeAPI serves list for lists and watchStream for watches, in media
// type ct.
func fakeAPI(ct string, list, watchStream []byte) *rest.Config {
	return &rest.Config{Host: "http://fake", ContentConfig: rest.ContentConfig{ContentType: ct},
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			body := list
			if r.URL.Query().Get("watch") == "true" {
				body = watchStream
			}
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}},
				Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})}
}

// randomPods returns n random Pods, every Pod after the first third a
// copy of one before it under another name, as Pods of one workload are.
func randomPods(seed int64, n int) []corev1.Pod {
	f := randfill.NewWithSeed(seed).NilChance(0.2).NumElements(1, 3).MaxDepth(7).Funcs(encodable...)
	pods := make([]corev1.Pod, n)
	for i := range pods {
		if i >= n/3 && i > 0 {
			pods[i] = *pods[i%(n/3)].DeepCopy()
			pods[i].Name += "-copy"
			continue
		}
		f.Fill(&pods[i])
	}
	return pods
}

// encodable fill times, managed fields and quantities with values JSON
// can hold.
var encodable = []any{
	func(t *metav1.Time, c randfill.Continue) { *t = metav1.Unix(c.Int63n(4e9), 0) },
	func(m *metav1.FieldsV1, c randfill.Continue) {
		m.Raw = fmt.Appendf(nil, `{"f:metadata":{"f:labels":{%q:{}}}}`, c.String(8))
	},
	func(q *resource.Quantity, c randfill.Continue) {
		*q = *resource.NewMilliQuantity(c.Int63n(1e9), resource.DecimalSI)
	},
}

func podEvents(pods []corev1.Pod) []watch.Event {
	var evs []watch.Event
	for i := range pods {
		t := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}[i%3]
		evs = append(evs, watch.Event{Type: t, Object: &pods[i]})
	}
	return evs
}

// podSource lists and watches Pods through one client.
type podSource struct {
	list  func(context.Context) (runtime.Object, error)
	watch func(context.Context) (watch.Interface, error)
}

// typedSource lists and watches all Pods with c.
func typedSource(c corev1client.CoreV1Interface) podSource {
	return podSource{
		list:  func(ctx context.Context) (runtime.Object, error) { return c.Pods("").List(ctx, metav1.ListOptions{}) },
		watch: func(ctx context.Context) (watch.Interface, error) { return c.Pods("").Watch(ctx, metav1.ListOptions{}) },
	}
}

// listAndWatch lists and watches Pods with src, returning the list (or its
// error) and every event until the stream ends.
func listAndWatch(t *testing.T, src podSource) (runtime.Object, []watch.Event, error) {
	t.Helper()
	list, lerr := src.list(context.Background())
	w, err := src.watch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var evs []watch.Event
	for e := range w.ResultChan() {
		evs = append(evs, e)
	}
	return list, evs, lerr
}

// requireSameDamaged serves n cut or corrupted copies of list and stream,
// in media type ct, to the client-go client and the lean client sources
// makes for them, and requires the same errors and the same objects.
func requireSameDamaged(t *testing.T, r *rand.Rand, ct string, list, stream []byte, n int, sources func(*rest.Config) (clientGo, lean podSource)) {
	t.Helper()
	for range n {
		l, s := bytes.Clone(list), bytes.Clone(stream)
		if r.IntN(2) == 0 {
			l, s = l[:r.IntN(len(l))], s[:r.IntN(len(s))]
		} else {
			l[r.IntN(len(l))] = byte(r.Uint32())
			s[r.IntN(len(s))] = byte(r.Uint32())
		}
		want, got := sources(fakeAPI(ct, l, s))
		wantList, wantEvents, werr := listAndWatch(t, want)
		gotList, gotEvents, gerr := listAndWatch(t, got)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%s: list errors: client-go %v, lean %v", ct, werr, gerr)
		}
		if werr == nil {
			requireEqual(t, ct+" list", wantList, gotList)
		}
		requireEqual(t, ct+" events", wantEvents, gotEvents)
	}
}

func leanCoreV1(t *testing.T, cfg *rest.Config) corev1client.CoreV1Interface {
	t.Helper()
	rc, err := RESTClientFor(cfg, corev1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	return corev1client.New(rc)
}

func requireEqual(t *testing.T, what string, want, got any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s differs, -client-go +lean:\n%s", what, cmp.Diff(want, got))
	}
}

// TestRESTClientForDecodesAsClientGo lists and watches random Pods with a
// clientset and with a client of RESTClientFor, in each codec, and
// requires the same list and the same events, and that equal parts of
// Pods are shared: whole containers in protobuf, strings in JSON.
func TestRESTClientForDecodesAsClientGo(t *testing.T) {
	for _, ct := range codecs {
		shared, pairs := 0, 0
		for seed := range int64(8) {
			pods := randomPods(seed, 30)
			cfg := fakeAPI(ct, body(t, ct, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: pods}),
				watchBody(t, ct, podEvents(pods)...))
			wantList, wantEvents, werr := listAndWatch(t, typedSource(kubernetes.NewForConfigOrDie(cfg).CoreV1()))
			lean := leanCoreV1(t, cfg)
			gotList, gotEvents, gerr := listAndWatch(t, typedSource(lean))
			if werr != nil || gerr != nil {
				t.Fatalf("%s: list errors: client-go %v, lean %v", ct, werr, gerr)
			}
			requireEqual(t, ct+" list", wantList, gotList)
			requireEqual(t, ct+" events", wantEvents, gotEvents)
			s, p := sharedParts(ct, gotList.(*corev1.PodList).Items)
			shared, pairs = shared+s, pairs+p
		}
		if pairs < 40 || shared < pairs*9/10 {
			t.Fatalf("%s: %d of %d pairs of equal containers shared", ct, shared, pairs)
		}
	}
}

// sharedParts counts, for the media type ct, the pairs of equal
// containers (see sharedContainers) that share their value in protobuf,
// or their name's bytes in JSON.
func sharedParts(ct string, items []corev1.Pod) (shared, pairs int) {
	if ct == protoType {
		return sharedContainers(items)
	}
	third := len(items) / 3
	for i := 2 * third; i < len(items); i++ {
		a, b := items[i-third], items[i]
		if len(a.Spec.Containers) == 0 || a.Spec.Containers[0].Name == "" {
			continue
		}
		pairs++
		if unsafe.StringData(a.Spec.Containers[0].Name) == unsafe.StringData(b.Spec.Containers[0].Name) {
			shared++
		}
	}
	return shared, pairs
}

// sharedContainers counts the Pods of the last third of items (copies of
// the first, as randomPods makes them) whose containers are those of the
// Pod of the middle third they copy: a value is kept the second time it
// is met, shared from the third (or nearly always: the filter of first
// sightings is direct-mapped, and can forget one).
func sharedContainers(items []corev1.Pod) (shared, pairs int) {
	third := len(items) / 3
	for i := 2 * third; i < len(items); i++ {
		a, b := items[i-third], items[i]
		if len(a.Spec.Containers) == 0 {
			continue
		}
		pairs++
		if &a.Spec.Containers[0] == &b.Spec.Containers[0] {
			shared++
		}
	}
	return shared, pairs
}

// TestRESTClientForOtherGroups lists Deployments (apps/v1, under /apis)
// both ways, in each codec.
func TestRESTClientForOtherGroups(t *testing.T) {
	for _, ct := range codecs {
		f := randfill.NewWithSeed(3).NilChance(0.2).NumElements(1, 3).MaxDepth(7).Funcs(encodable...)
		list := &appsv1.DeploymentList{}
		f.Fill(list)
		list.TypeMeta = metav1.TypeMeta{}
		cfg := fakeAPI(ct, body(t, ct, list), nil)
		want, err := kubernetes.NewForConfigOrDie(cfg).AppsV1().Deployments("ns").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rc, err := RESTClientFor(cfg, appsv1.SchemeGroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appsv1client.New(rc).Deployments("ns").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		requireEqual(t, ct+" deployments", want, got)
	}
}

// TestRESTClientForDamaged cuts and corrupts list and watch bodies, in
// each codec, and requires the same errors and the same objects from both
// clients.
func TestRESTClientForDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	pods := randomPods(11, 6)
	for _, ct := range codecs {
		list := body(t, ct, &corev1.PodList{Items: pods})
		stream := watchBody(t, ct, podEvents(pods)...)
		requireSameDamaged(t, r, ct, list, stream, 200, func(cfg *rest.Config) (podSource, podSource) {
			return typedSource(kubernetes.NewForConfigOrDie(cfg).CoreV1()), typedSource(leanCoreV1(t, cfg))
		})
	}
}

// TestNewClientsetDecodesAsClientGo lists Pods and Deployments through a
// Clientset and requires what a clientset lists, with Pods' equal parts
// shared (the lean decoder built them).
func TestNewClientsetDecodesAsClientGo(t *testing.T) {
	pods := randomPods(5, 30)
	cfg := fakeAPI(protoType, protoBody(t, &corev1.PodList{Items: pods}), nil)
	cs, err := NewClientset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := cs.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "pods", want, got)
	if shared, pairs := sharedContainers(got.Items); pairs < 5 || shared < pairs-1 {
		t.Fatalf("%d of %d pairs of equal containers shared: the Clientset's Pods were not built by the lean decoder", shared, pairs)
	}
	var kube kubernetes.Interface = cs
	if kube.AppsV1().RESTClient().APIVersion() != appsv1.SchemeGroupVersion {
		t.Fatalf("AppsV1 speaks %v", kube.AppsV1().RESTClient().APIVersion())
	}
}
