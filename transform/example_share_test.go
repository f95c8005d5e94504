package transform_test

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/transform"
)

// ExampleShareEqualValues shows Pods of one workload sharing their labels
// once the transform has met them twice.
func ExampleShareEqualValues() {
	tr := transform.ChainTransforms(transform.DropManagedFields(), transform.ShareEqualValues())
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "shop", Name: name,
			Labels: map[string]string{"app": "cart", "pod-template-hash": "5d4f9c"},
		}}
	}
	var pods []*corev1.Pod
	for _, name := range []string{"cart-a", "cart-b", "cart-c"} {
		obj, _ := tr(pod(name)) // as the informer does before caching
		pods = append(pods, obj.(*corev1.Pod))
	}
	same := reflect.ValueOf(pods[1].Labels).UnsafePointer() == reflect.ValueOf(pods[2].Labels).UnsafePointer()
	fmt.Println("cart-c has its own labels:", !same)
	fmt.Println("cart-c is unchanged:", reflect.DeepEqual(pods[2], pod("cart-c")))
	// Output:
	// cart-c has its own labels: false
	// cart-c is unchanged: true
}
