package decode

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// lean is p without what the test options drop.
func lean(p *corev1.Pod) *corev1.Pod {
	p = p.DeepCopy()
	p.ManagedFields = nil
	delete(p.Annotations, "kubectl.kubernetes.io/last-applied-configuration")
	p.Spec.NodeName = ""
	return p
}

var testOptions = Options{DropManagedFields: true, DropFields: [][]string{
	{"metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration"},
	{"spec", "nodeName"},
}}

func TestFilterListAndObject(t *testing.T) {
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "9"},
		Items:    []corev1.Pod{*samplePod("a"), *samplePod("b")}}
	want := &corev1.PodList{ListMeta: list.ListMeta, Items: []corev1.Pod{*lean(&list.Items[0]), *lean(&list.Items[1])}}
	for _, c := range []struct {
		name, ct string
		body     []byte
	}{{"proto", protoType, protoBody(t, list)}, {"json", jsonType, jsonBody(t, list)}} {
		for _, chunk := range []int{1, 7, 1 << 20} {
			out, err := filter(t, testOptions, c.ct, false, c.body, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if c.ct == protoType && len(out) != len(c.body) {
				t.Fatalf("%s: length %d, want %d", c.name, len(out), len(c.body))
			}
			got, err := decodeBody(c.ct, out)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			gl := got.(*corev1.PodList)
			gl.TypeMeta = metav1.TypeMeta{}
			for i := range gl.Items {
				gl.Items[i].TypeMeta = want.Items[i].TypeMeta
			}
			if !apiequality.Semantic.DeepEqual(gl, want) {
				t.Fatalf("%s chunk %d: got %+v\nwant %+v", c.name, chunk, gl, want)
			}
		}
		// A single object.
		var body []byte
		if c.ct == protoType {
			body = protoBody(t, samplePod("x"))
		} else {
			body = jsonBody(t, samplePod("x"))
		}
		out, err := filter(t, testOptions, c.ct, false, body, 3)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeBody(c.ct, out)
		if err != nil {
			t.Fatal(err)
		}
		if w := lean(samplePod("x")); !apiequality.Semantic.DeepEqual(got, w) {
			t.Fatalf("%s: got %+v\nwant %+v", c.name, got, w)
		}
	}
}

func TestFilterWatch(t *testing.T) {
	events := []watch.Event{
		{Type: watch.Added, Object: samplePod("a")},
		{Type: watch.Modified, Object: samplePod("b")},
		{Type: watch.Error, Object: &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Code: 410, Reason: metav1.StatusReasonExpired}},
	}
	for _, mt := range []string{protoType, jsonType} {
		body := watchBody(t, mt, events...)
		for _, chunk := range []int{1, 5, 1 << 20} {
			out, err := filter(t, testOptions, mt+";stream=watch", true, body, chunk)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeWatch(mt, out)
			if err != nil {
				t.Fatalf("%s: %v", mt, err)
			}
			if len(got) != 3 {
				t.Fatalf("%s: %d events", mt, len(got))
			}
			for i, e := range got[:2] {
				if !apiequality.Semantic.DeepEqual(e.Object, lean(events[i].Object.(*corev1.Pod))) {
					t.Fatalf("%s event %d: %+v", mt, i, e.Object)
				}
			}
			if s, ok := got[2].Object.(*metav1.Status); !ok || s.Code != 410 {
				t.Fatalf("%s: %+v", mt, got[2].Object)
			}
		}
	}
}

// TestFilterTruncated: a body cut anywhere reaches the decoder with the
// same error as the unfiltered body.
func TestFilterTruncated(t *testing.T) {
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, Items: []corev1.Pod{*samplePod("a"), *samplePod("b")}}
	for _, ct := range []string{protoType, jsonType} {
		var body []byte
		if ct == protoType {
			body = protoBody(t, list)
		} else {
			body = jsonBody(t, list)
		}
		for cut := 0; cut < len(body); cut++ {
			in := body[:cut]
			out, err := filter(t, testOptions, ct, false, in, 64)
			if err != nil {
				t.Fatal(err)
			}
			_, refErr := decodeBody(ct, in)
			_, gotErr := decodeBody(ct, out)
			if (refErr == nil) != (gotErr == nil) || (refErr != nil && refErr.Error() != gotErr.Error()) {
				t.Fatalf("%s cut at %d: error %v, client-go's %v", ct, cut, gotErr, refErr)
			}
		}
	}
}

var _ = bytes.Equal
var _ runtime.Object
