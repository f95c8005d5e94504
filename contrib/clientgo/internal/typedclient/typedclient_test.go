package typedclient

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

// TestFind finds namespaced and cluster-scoped typed clients of the fake
// and the real clientset, lists through them in one namespace, and
// refuses what no clientset serves.
func TestFind(t *testing.T) {
	cs := fake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p1"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "p2"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
	)
	for _, tc := range []struct {
		obj        runtime.Object
		gv, res    string
		namespaced bool
	}{
		{&corev1.Pod{}, "CoreV1", "Pods", true},
		{&corev1.Node{}, "CoreV1", "Nodes", false},
		{&appsv1.Deployment{}, "AppsV1", "Deployments", true},
	} {
		for _, client := range []any{cs, kubernetes.Interface(&kubernetes.Clientset{})} {
			r, err := Find(client, tc.obj)
			if err != nil {
				t.Fatalf("%T in %T: %v", tc.obj, client, err)
			}
			if r.groupVersion != tc.gv || r.resource != tc.res || r.Namespaced != tc.namespaced {
				t.Errorf("%T in %T: %+v", tc.obj, client, r)
			}
		}
	}
	r, _ := Find(cs, &corev1.Pod{})
	list, err := r.In(cs, "a").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.(*corev1.PodList).Items) != 1 || list.(*corev1.PodList).Items[0].Name != "p1" {
		t.Fatalf("list in a: %v, %v", list, err)
	}
	r, _ = Find(cs, &corev1.Node{})
	list, err = r.In(cs, "a").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.(*corev1.NodeList).Items) != 1 {
		t.Fatalf("nodes: %v, %v", list, err)
	}
	w, err := r.In(cs, "").Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	if _, err := Find(cs, &metav1.PartialObjectMetadata{}); err == nil || !strings.Contains(err.Error(), "no typed client") {
		t.Errorf("an unserved type: %v", err)
	}
	if _, err := Find(nil, &corev1.Pod{}); err == nil {
		t.Error("a nil client")
	}
	if _, err := Find((*fake.Clientset)(nil), &corev1.Pod{}); err == nil {
		t.Error("a nil clientset pointer")
	}
}
