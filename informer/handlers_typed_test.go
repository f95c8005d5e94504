package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testPod(ns, name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

func TestDeletedObject(t *testing.T) {
	p := testPod("ns", "a", "1")
	cases := []struct {
		name                string
		d                   DeletedObject[*corev1.Pod]
		key, gotNS, gotName string
	}{
		{"object", DeletedObject[*corev1.Pod]{OptionalObj: p}, "ns/a", "ns", "a"},
		{"tombstone", DeletedObject[*corev1.Pod]{OptionalObj: p, FinalStateUnknown: &DeletedFinalStateUnknown{Key: "ns/a", Obj: p}}, "ns/a", "ns", "a"},
		{"tombstone without object", DeletedObject[*corev1.Pod]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "ns/x/y"}}, "ns/x/y", "ns", "x/y"},
		{"cluster-scoped tombstone", DeletedObject[*corev1.Pod]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "x"}}, "x", "", "x"},
		{"cluster-scoped", DeletedObject[*corev1.Pod]{OptionalObj: testPod("", "c", "1")}, "c", "", "c"},
		{"nothing", DeletedObject[*corev1.Pod]{}, "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.key, tc.d.GetKey())
			assert.Equal(t, tc.gotNS, tc.d.GetNamespace())
			assert.Equal(t, tc.gotName, tc.d.GetName())
		})
	}
}

func TestTypedHandlerAdapter(t *testing.T) {
	var got []string
	var deleted []DeletedObject[*corev1.Pod]
	h := typedHandler[*corev1.Pod]{TypedResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, initial bool) {
			got = append(got, "add "+p.Name+map[bool]string{true: " initial", false: ""}[initial])
		},
		UpdateFunc: func(o, n *corev1.Pod) { got = append(got, "update "+o.ResourceVersion+"->"+n.ResourceVersion) },
		DeleteFunc: func(d DeletedObject[*corev1.Pod]) {
			got = append(got, "delete "+d.GetKey())
			deleted = append(deleted, d)
		},
	}}
	p1, p2 := testPod("ns", "a", "1"), testPod("ns", "a", "2")
	h.OnAdd(p1, true)
	h.OnUpdate(p1, p2)
	h.OnDelete(p2)
	h.OnDelete(DeletedFinalStateUnknown{Key: "ns/a", Obj: p2})
	h.OnDelete(DeletedFinalStateUnknown{Key: "ns/b"})
	assert.Equal(t, []string{"add a initial", "update 1->2", "delete ns/a", "delete ns/a", "delete ns/b"}, got)
	assert.Same(t, p2, deleted[0].OptionalObj)
	assert.Nil(t, deleted[0].FinalStateUnknown)
	assert.Same(t, p2, deleted[1].OptionalObj)
	assert.Equal(t, "ns/a", deleted[1].FinalStateUnknown.Key)
	assert.Nil(t, deleted[2].OptionalObj)
}

func TestTypedFilteringResourceEventHandler(t *testing.T) {
	var got []string
	inner := TypedResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod) { got = append(got, "add "+p.ResourceVersion) },
		UpdateFunc: func(o, n *corev1.Pod) { got = append(got, "update "+o.ResourceVersion+"->"+n.ResourceVersion) },
		DeleteFunc: func(d DeletedObject[*corev1.Pod]) { got = append(got, "delete "+d.OptionalObj.ResourceVersion) },
	}
	odd := func(p *corev1.Pod) bool { return p != nil && p.ResourceVersion[0]%2 == 1 }
	h := TypedFilteringResourceEventHandler[*corev1.Pod]{FilterFunc: odd, Handler: inner}
	h.OnAdd(testPod("n", "a", "1"), false)
	h.OnAdd(testPod("n", "a", "2"), false)
	h.OnUpdate(testPod("n", "a", "1"), testPod("n", "a", "3"))
	h.OnUpdate(testPod("n", "a", "2"), testPod("n", "a", "5"))
	h.OnUpdate(testPod("n", "a", "5"), testPod("n", "a", "6"))
	h.OnUpdate(testPod("n", "a", "6"), testPod("n", "a", "8"))
	h.OnDelete(DeletedObject[*corev1.Pod]{OptionalObj: testPod("n", "a", "7")})
	h.OnDelete(DeletedObject[*corev1.Pod]{OptionalObj: testPod("n", "a", "8")})
	h.OnDelete(DeletedObject[*corev1.Pod]{})
	assert.Equal(t, []string{"add 1", "update 1->3", "add 5", "delete 5", "delete 7"}, got)
}
