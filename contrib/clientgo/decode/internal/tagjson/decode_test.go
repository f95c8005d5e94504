package tagjson

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestSlicesMadeAtFinalSize decodes a Pod whose slices hold three
// values and requires each slice's capacity to be its length: the
// reference decoder grows slices, leaving spare capacity in the cache.
func TestSlicesMadeAtFinalSize(t *testing.T) {
	b := []byte(`{"metadata":{"finalizers":["a","b","c"],"labels":{"x":"1","y":"2","z":"3"}},
		"spec":{"containers":[{"name":"a","args":["1","2","3"]},{"name":"b"},{"name":"c"}]}}`)
	var d Decoder
	var p corev1.Pod
	if err := d.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	for what, lc := range map[string][2]int{
		"finalizers": {len(p.Finalizers), cap(p.Finalizers)},
		"containers": {len(p.Spec.Containers), cap(p.Spec.Containers)},
		"args":       {len(p.Spec.Containers[0].Args), cap(p.Spec.Containers[0].Args)},
	} {
		if lc[0] != 3 || lc[1] != 3 {
			t.Errorf("%s: length %d, capacity %d, want 3 and 3", what, lc[0], lc[1])
		}
	}
	if len(p.Labels) != 3 {
		t.Errorf("labels: %v", p.Labels)
	}
}
