package transform

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/kfanout/fanout/deltafifo"
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

func dropPod() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: "p", ResourceVersion: "7",
			Labels:        map[string]string{"app": "x"},
			Annotations:   map[string]string{lastApplied: "{}", "keep": "yes"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{}}`)}}},
		},
		Spec:   corev1.PodSpec{NodeName: "n1", SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr.To(int64(1000))}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady}}},
	}
}

func TestDropFieldsTyped(t *testing.T) {
	tr := DropFields(ManagedFieldsPath,
		[]string{"metadata", "annotations", lastApplied},
		[]string{"status", "conditions"},
		[]string{"spec", "securityContext", "runAsUser"},
		[]string{"spec", "noSuchField"},
		[]string{"kind"}, // from the inlined TypeMeta
	)
	want := dropPod()
	want.Kind = ""
	want.ManagedFields = nil
	want.Annotations = map[string]string{"keep": "yes"}
	want.Status.Conditions = nil
	want.Spec.SecurityContext.RunAsUser = nil
	for range 2 { // the second time through the cached routes
		got, err := tr(dropPod())
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}

	// A path through a nil pointer is skipped.
	p := dropPod()
	p.Spec.SecurityContext = nil
	got, err := tr(p)
	require.NoError(t, err)
	assert.Nil(t, got.(*corev1.Pod).Spec.SecurityContext)
	assert.Nil(t, got.(*corev1.Pod).ManagedFields)
}

func TestDropManagedFields(t *testing.T) {
	tr := DropManagedFields()
	p := dropPod()
	got, err := tr(p)
	require.NoError(t, err)
	assert.Same(t, p, got, "changed in place")
	want := dropPod()
	want.ManagedFields = nil
	assert.Equal(t, want, got)

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ManagedFields: p.ManagedFields}, Data: map[string]string{"k": "v"}}
	cm.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m"}}
	got, err = tr(cm)
	require.NoError(t, err)
	assert.Equal(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "v"}}, got)

	tomb := deltafifo.DeletedFinalStateUnknown{Key: "ns/p", Obj: dropPod()}
	got, err = tr(tomb)
	require.NoError(t, err)
	assert.Equal(t, tomb, got, "a tombstone passes through unchanged")
	assert.NotNil(t, tomb.Obj.(*corev1.Pod).ManagedFields)
}

func TestDropFieldsUnstructured(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{
			"name":          "p",
			"managedFields": []any{map[string]any{"manager": "m"}},
			"annotations":   map[string]any{lastApplied: "{}", "keep": "yes"},
		},
	}}
	got, err := DropFields(ManagedFieldsPath, []string{"metadata", "annotations", lastApplied})(u)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "annotations": map[string]any{"keep": "yes"}},
	}, got.(*unstructured.Unstructured).Object)
}

func TestInternLabelsAndAnnotations(t *testing.T) {
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	// The table holds 3 strings: the labels' key and value, then the
	// annotation's key; its value is not shared.
	tr := InternLabelsAndAnnotations(3)
	mk := func() *corev1.Pod {
		// strings.Clone: distinct copies, as a decoder makes them.
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Labels:      map[string]string{strings.Clone("app"): strings.Clone("web")},
			Annotations: map[string]string{strings.Clone("a"): strings.Clone("b")},
		}}
	}
	p1, p2 := mk(), mk()
	_, err := tr(p1)
	require.NoError(t, err)
	_, err = tr(p2)
	require.NoError(t, err)
	assert.Equal(t, mk().Labels, p2.Labels)
	assert.Equal(t, mk().Annotations, p2.Annotations)
	onlyKey := func(m map[string]string) string {
		for k := range m {
			return k
		}
		return ""
	}
	assert.True(t, same(onlyKey(p1.Labels), onlyKey(p2.Labels)), "label keys shared")
	assert.True(t, same(p1.Labels["app"], p2.Labels["app"]), "label values shared")
	assert.True(t, same(onlyKey(p1.Annotations), onlyKey(p2.Annotations)), "annotation key shared")
	assert.False(t, same(p1.Annotations["a"], p2.Annotations["a"]), "the table was full")

	// Values over 256 bytes are never shared.
	long := InternLabelsAndAnnotations(0)
	v := strings.Repeat("x", 300)
	q1 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"k": strings.Clone(v)}}}
	q2 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"k": strings.Clone(v)}}}
	_, _ = long(q1)
	_, _ = long(q2)
	assert.False(t, same(q1.Annotations["k"], q2.Annotations["k"]))
	assert.Equal(t, v, q2.Annotations["k"])

	got, err := tr("not an object")
	require.NoError(t, err)
	assert.Equal(t, "not an object", got)
}
