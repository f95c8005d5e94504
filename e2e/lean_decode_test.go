package e2e

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/decode"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
)

// leanPod is the i-th Pod of one of three workloads: what Pods of one
// workload share (labels, containers, resources, tolerations) repeats.
func leanPod(ns string, i int) *corev1.Pod {
	app := fmt.Sprintf("app-%d", i%3)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%03d", app, i), Namespace: ns,
			Labels: map[string]string{"app": app, "tier": "web"}, Annotations: map[string]string{"n": fmt.Sprint(i)}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "registry.example/" + app + ":1",
				Env: []corev1.EnvVar{{Name: "APP", Value: app}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}}},
			Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}},
		},
	}
}

// TestLeanClientsetAsClientGo lists and watches Pods of a real
// kube-apiserver, over protobuf and over JSON, through a clientset and
// through decode.NewClientset (fanout's decoders), each with an informer
// of its factory, while Pods are created, updated and deleted. Both
// informers' stores must end equal, object for object, to the server's
// list; the lists of both clients at one resourceVersion must be equal;
// and the lean objects must share what Pods of one workload have in
// common (in protobuf their tolerations, in JSON their images' bytes).
// Over JSON, the unstructured lists of client-go's dynamic client and of
// decode.DynamicClientFor must be equal too.
func TestLeanClientsetAsClientGo(t *testing.T) {
	for _, ct := range []string{"application/vnd.kubernetes.protobuf", "application/json"} {
		t.Run(ct, func(t *testing.T) { leanClientsetAsClientGo(t, ct) })
	}
}

func leanClientsetAsClientGo(t *testing.T, contentType string) {
	c := needCluster(t)
	ctx := context.Background()
	cfg := c.config(t, "kubeconfig")
	cfg.ContentType = contentType
	std, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Exact-version lists through the lean clientset are counted, with
	// the media type of the last: a protobuf list streams when the
	// server's response is plain protobuf, and then takes one request
	// (one that falls back to client-go's decoder takes two).
	var exactLists atomic.Int64
	var exactType atomic.Value
	counted := rest.CopyConfig(cfg)
	counted.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err == nil && r.URL.Query().Get("resourceVersionMatch") == string(metav1.ResourceVersionMatchExact) {
				exactLists.Add(1)
				exactType.Store(resp.Header.Get("Content-Type") + " " + resp.Header.Get("Content-Encoding"))
			}
			return resp, err
		})
	})
	lean, err := decode.NewClientset(counted)
	if err != nil {
		t.Fatal(err)
	}
	ns := "lean-" + runID(t)
	createNamespace(ctx, t, std, ns)
	const before, total = 30, 60
	create := func(i int) error {
		_, err := std.CoreV1().Pods(ns).Create(ctx, leanPod(ns, i), metav1.CreateOptions{})
		return err
	}
	if err := parallel(before, 8, create); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	defer close(stop)
	stores := map[string]cache.Store{}
	for name, cs := range map[string]kubernetes.Interface{"client-go decoder": std, "fanout decoder": lean} {
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
		stores[name] = f.Core().V1().Pods().Informer().GetStore()
		f.Start(stop)
		for typ, ok := range f.WaitForCacheSync(stop) {
			if !ok {
				t.Fatalf("%s: %v did not sync", name, typ)
			}
		}
	}

	// Changes while both watch: more Pods, label and annotation updates,
	// deletions.
	if err := parallel(total-before, 8, func(i int) error { return create(before + i) }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < total; i += 4 {
		p, err := std.CoreV1().Pods(ns).Get(ctx, leanPod(ns, i).Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Labels["tier"] = "backend"
		p.Annotations["n"] = "updated"
		if _, err := std.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < total; i += 5 {
		if err := std.CoreV1().Pods(ns).Delete(ctx, leanPod(ns, i).Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	want, err := std.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, store := range stores {
		eventually(t, 30*time.Second, name+" store equals the server's list", func() string {
			return diffPods(want.Items, store.List())
		})
	}
	got, err := lean.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{ResourceVersion: want.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatal(err)
	}
	if d := diffPods(want.Items, podsAny(got.Items)); d != "" {
		t.Fatalf("lists at resourceVersion %s: %s", want.ResourceVersion, d)
	}
	if n := exactLists.Load(); n != 1 {
		t.Fatalf("the lean list took %d requests: it fell back", n)
	}
	if mt := exactType.Load(); contentType == "application/vnd.kubernetes.protobuf" && mt != contentType+" " {
		t.Fatalf("the server answered the lean list as %q: it did not stream", mt)
	}
	if contentType == "application/json" {
		dynamicListsAgree(ctx, t, cfg, ns, want.ResourceVersion)
	}
	shared := 0
	for i := range got.Items {
		for j := range i {
			a, b := &got.Items[i], &got.Items[j]
			if a.Labels["app"] != b.Labels["app"] {
				continue
			}
			if contentType == "application/json" && unsafe.StringData(a.Spec.Containers[0].Image) == unsafe.StringData(b.Spec.Containers[0].Image) ||
				&a.Spec.Tolerations[0] == &b.Spec.Tolerations[0] {
				shared++
			}
		}
	}
	if shared == 0 {
		t.Fatal("no two Pods of one workload share their parts: the lean decoder did not build them")
	}
}

// dynamicListsAgree lists the Pods of ns at resourceVersion rv with
// client-go's dynamic client and with decode.DynamicClientFor, and
// requires equal unstructured lists.
func dynamicListsAgree(ctx context.Context, t *testing.T, cfg *rest.Config, ns, rv string) {
	t.Helper()
	std, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lean, err := decode.DynamicClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
	pods := corev1.SchemeGroupVersion.WithResource("pods")
	want, err := std.Resource(pods).Namespace(ns).List(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := lean.Resource(pods).Namespace(ns).List(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) == 0 || !reflect.DeepEqual(want, got) {
		t.Fatalf("unstructured lists at resourceVersion %s differ (%d items), -client-go +lean:\n%s", rv, len(got.Items), cmp.Diff(want, got))
	}
}

func podsAny(ps []corev1.Pod) []any {
	out := make([]any, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}

// diffPods compares want with the Pods in got, by name, deeply; it
// returns "" when they are equal.
func diffPods(want []corev1.Pod, got []any) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d Pods, want %d", len(got), len(want))
	}
	sorted := make([]*corev1.Pod, len(got))
	for i, o := range got {
		sorted[i] = o.(*corev1.Pod)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	w := append([]corev1.Pod(nil), want...)
	sort.Slice(w, func(i, j int) bool { return w[i].Name < w[j].Name })
	for i := range w {
		if !reflect.DeepEqual(&w[i], sorted[i]) {
			return fmt.Sprintf("Pod %s differs, -want +got:\n%s", w[i].Name, cmp.Diff(&w[i], sorted[i]))
		}
	}
	return ""
}

// roundTripperFunc is an http.RoundTripper.
type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
