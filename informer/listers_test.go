package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var storePodsResource = schema.GroupResource{Resource: "pods"}

// listerFixture returns an indexer, with or without a namespace index,
// holding four pods.
func listerFixture(t *testing.T, withNamespaceIndex bool) Indexer {
	t.Helper()
	indexers := Indexers{}
	if withNamespaceIndex {
		indexers[NamespaceIndex] = MetaNamespaceIndexFunc
	}
	idx := NewIndexer(MetaNamespaceKeyFunc, indexers)
	for _, p := range []*corev1.Pod{
		storePod("ns1", "a", "1", map[string]string{"app": "web", "env": "prod"}),
		storePod("ns1", "b", "2", map[string]string{"app": "db"}),
		storePod("ns2", "c", "3", map[string]string{"app": "web"}),
		storePod("", "d", "4", map[string]string{"app": "web"}),
	} {
		require.NoError(t, idx.Add(p))
	}
	return idx
}

func collectPodKeys(t *testing.T, list func(AppendFunc) error) []string {
	t.Helper()
	var got []any
	require.NoError(t, list(func(o any) { got = append(got, o) }))
	return podKeys(got)
}

func TestListAll(t *testing.T) {
	idx := listerFixture(t, true)
	tests := []struct {
		name     string
		selector labels.Selector
		want     []string
	}{
		{"everything", labels.Everything(), []string{"/d", "ns1/a", "ns1/b", "ns2/c"}},
		{"nil selector", nil, []string{"/d", "ns1/a", "ns1/b", "ns2/c"}},
		{"nothing", labels.Nothing(), []string{}},
		{"app=web", labels.SelectorFromSet(labels.Set{"app": "web"}), []string{"/d", "ns1/a", "ns2/c"}},
		{"app=web,env=prod", labels.SelectorFromSet(labels.Set{"app": "web", "env": "prod"}), []string{"ns1/a"}},
		{"no match", labels.SelectorFromSet(labels.Set{"app": "none"}), []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := collectPodKeys(t, func(fn AppendFunc) error { return ListAll(idx, tc.selector, fn) })
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestListAllByNamespace(t *testing.T) {
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	tests := []struct {
		name      string
		namespace string
		selector  labels.Selector
		want      []string
	}{
		{"namespace, everything", "ns1", labels.Everything(), []string{"ns1/a", "ns1/b"}},
		{"namespace, app=web", "ns1", web, []string{"ns1/a"}},
		{"namespace, nothing", "ns1", labels.Nothing(), []string{}},
		{"all namespaces", "", web, []string{"/d", "ns1/a", "ns2/c"}},
		{"unknown namespace", "ns9", labels.Everything(), []string{}},
	}
	for _, withIndex := range []bool{true, false} {
		idx := listerFixture(t, withIndex)
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got := collectPodKeys(t, func(fn AppendFunc) error { return ListAllByNamespace(idx, tc.namespace, tc.selector, fn) })
				assert.Equal(t, tc.want, got, "namespace index: %v", withIndex)
			})
		}
	}
}

func TestListAllObjectWithoutMeta(t *testing.T) {
	idx := NewIndexer(func(o any) (string, error) { return o.(string), nil }, nil)
	require.NoError(t, idx.Add("plain"))
	sel := labels.SelectorFromSet(labels.Set{"a": "b"})
	err := ListAll(idx, sel, func(any) {})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "object has no meta")
	err = ListAllByNamespace(idx, "ns", labels.Everything(), func(any) {})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "object has no meta")
}

func TestGenericLister(t *testing.T) {
	idx := listerFixture(t, true)
	l := NewGenericLister(idx, storePodsResource)

	objs, err := l.List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"/d", "ns1/a", "ns2/c"}, podKeys(runtimeToInterfaces(objs)))

	obj, err := l.Get("d")
	require.NoError(t, err)
	assert.Equal(t, "d", obj.(*corev1.Pod).Name)
	_, err = l.Get("missing")
	assert.True(t, apierrors.IsNotFound(err))
	assert.EqualError(t, err, `pods "missing" not found`)

	nl := l.ByNamespace("ns1")
	objs, err = nl.List(labels.Everything())
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1/a", "ns1/b"}, podKeys(runtimeToInterfaces(objs)))
	obj, err = nl.Get("b")
	require.NoError(t, err)
	assert.Equal(t, "2", obj.(*corev1.Pod).ResourceVersion)
	_, err = nl.Get("c")
	assert.True(t, apierrors.IsNotFound(err))

	// A stored value that is not a runtime.Object is an error, not a panic.
	require.NoError(t, idx.Add(&notRuntimeObject{ObjectMeta: metav1.ObjectMeta{Name: "odd"}}))
	_, err = l.List(labels.Everything())
	assert.EqualError(t, err, "object of type *informer.notRuntimeObject is not a runtime.Object")
	_, err = l.Get("odd")
	assert.EqualError(t, err, `object of type *informer.notRuntimeObject under key "odd" is not a runtime.Object`)
}

// notRuntimeObject has metadata but is not a runtime.Object.
type notRuntimeObject struct{ metav1.ObjectMeta }

func runtimeToInterfaces(objs []runtime.Object) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

func TestNewLister(t *testing.T) {
	idx := listerFixture(t, true)
	l := NewLister[*corev1.Pod](idx, storePodsResource)

	pods, err := l.List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"/d", "ns1/a", "ns2/c"}, podKeys(podsToInterfaces(pods)))

	pod, err := l.Get("d")
	require.NoError(t, err)
	assert.Equal(t, "4", pod.ResourceVersion)
	pod, err = l.Get("nope")
	assert.Nil(t, pod)
	assert.True(t, apierrors.IsNotFound(err))

	ns := l.ByNamespace("ns1")
	pods, err = ns.List(labels.SelectorFromSet(labels.Set{"app": "db"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1/b"}, podKeys(podsToInterfaces(pods)))
	pod, err = ns.Get("a")
	require.NoError(t, err)
	assert.Equal(t, "1", pod.ResourceVersion)
	_, err = ns.Get("c")
	assert.EqualError(t, err, `pods "c" not found`)

	// Wrong types give errors.
	nodes := NewLister[*corev1.Node](idx, schema.GroupResource{Resource: "nodes"})
	_, err = nodes.Get("d")
	assert.EqualError(t, err, "object of type *v1.Pod is not of the expected type *v1.Node")
	_, err = nodes.ByNamespace("ns1").List(labels.Everything())
	assert.EqualError(t, err, "object of type *v1.Pod is not of the expected type *v1.Node")
}

func podsToInterfaces(pods []*corev1.Pod) []any {
	out := make([]any, len(pods))
	for i, p := range pods {
		out[i] = p
	}
	return out
}
