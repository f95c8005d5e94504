package informers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestGuessResource names built-in resources as their generated
// constructors do from client-go v0.36 on, and leaves unknown types zero.
func TestGuessResource(t *testing.T) {
	for _, c := range []struct {
		obj  runtime.Object
		want schema.GroupVersionResource
	}{
		{&corev1.Pod{}, schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
		{&corev1.Endpoints{}, schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}},
		{&networkingv1.Ingress{}, schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}},
		{&networkingv1.NetworkPolicy{}, schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}},
		{&runtime.Unknown{}, schema.GroupVersionResource{}},
		{nil, schema.GroupVersionResource{}},
	} {
		if got := guessResource(c.obj); got != c.want {
			t.Errorf("%T: %v, want %v", c.obj, got, c.want)
		}
	}
}
