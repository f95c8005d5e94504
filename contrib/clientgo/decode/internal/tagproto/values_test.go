package tagproto

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestValuesShare decodes three Pods of each of 20 Deployments and
// requires that what the second and third of each have in common is one
// value: the labels map, the containers' backing array, the owner
// reference's pointers; and that shared slices have no spare capacity an
// append could write into. A value is kept the second time it is met and
// shared from the third; the filter that remembers first sightings is
// direct-mapped, so a few may be forgotten: 18 of 20 must share. The
// cache is large for the 60 Pods (with 4,096 values, three values of one
// slot pair under a random seed failed about one run in thirty).
func TestValuesShare(t *testing.T) {
	pods := benchPods(t, 60)
	d := Decoder{Strings: NewTable(1 << 12).String, Values: NewValues(1 << 16)}
	decoded := make([]corev1.Pod, len(pods))
	for i := range pods {
		if err := d.Unmarshal(pods[i], &decoded[i]); err != nil {
			t.Fatal(err)
		}
	}
	var labels, containers, owners int
	for k := range 20 {
		a, b := decoded[20+k], decoded[40+k]
		if a.Name == b.Name {
			t.Fatal("two Pods are the same Pod")
		}
		if reflect.ValueOf(a.Labels).UnsafePointer() == reflect.ValueOf(b.Labels).UnsafePointer() {
			labels++
		}
		if &a.Spec.Containers[0] == &b.Spec.Containers[0] {
			containers++
		}
		if a.OwnerReferences[0].Controller == b.OwnerReferences[0].Controller {
			owners++
		}
		if len(a.Spec.Containers) != cap(a.Spec.Containers) {
			t.Errorf("containers have capacity %d for %d", cap(a.Spec.Containers), len(a.Spec.Containers))
		}
	}
	if labels < 18 || containers < 18 || owners < 18 {
		t.Fatalf("of 20 pairs of equal values, shared: labels %d, containers %d, owner references %d", labels, containers, owners)
	}
}

// TestValuesNotCanonical requires that a message whose fields are out of
// order or repeated is decoded without sharing: a second occurrence of a
// field merges into, or appends to, what it decodes, which must not be a
// value other objects hold.
func TestValuesNotCanonical(t *testing.T) {
	pods := benchPods(t, 1)
	d := Decoder{Values: NewValues(64)}
	var first corev1.Pod
	if err := d.Unmarshal(pods[0], &first); err != nil {
		t.Fatal(err)
	}
	labels := len(first.Labels)
	// The Pod again, then its metadata field again with one more label:
	// generated code merges the label into the metadata decoded first.
	extra := (&corev1.Pod{}).ObjectMeta
	extra.Labels = map[string]string{"extra": "label"}
	meta, err := extra.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b := append(append([]byte(nil), pods[0]...), 0x0a, byte(len(meta)))
	b = append(b, meta...)
	requireSame(t, reflect.TypeFor[corev1.Pod](), b, true)
	var merged corev1.Pod
	if err := d.Unmarshal(b, &merged); err != nil {
		t.Fatal(err)
	}
	if len(merged.Labels) != labels+1 || len(first.Labels) != labels {
		t.Fatalf("labels: merged %d, first %d, want %d and %d", len(merged.Labels), len(first.Labels), labels+1, labels)
	}
}

// TestValuesHeldBound puts distinct large encodings, each met twice, and
// requires the bytes held to fill up to maxHeld and stay within it.
func TestValuesHeldBound(t *testing.T) {
	v := NewValues(1 << 12)
	f := &field{}
	enc := make([]byte, maxShared)
	put := func(k int) {
		enc[0], enc[1], enc[2] = byte(k), byte(k>>8), byte(k>>16)
		h := v.hash(f, enc)
		for range 2 {
			if _, ok, keep := v.get(f, enc, h); !ok && keep {
				v.put(f, enc, h, reflect.ValueOf(k))
			}
		}
	}
	for k := range 4 * maxHeld / maxShared {
		put(k)
		if v.held > maxHeld {
			t.Fatalf("after %d values, %d bytes held", k+1, v.held)
		}
	}
	if v.held < maxHeld/2 {
		t.Fatalf("only %d bytes held", v.held)
	}
}

// TestRunsMadeAtFinalSize decodes a Pod whose repeated fields hold three
// values each, with and without Values, and requires slices without spare
// capacity: runs are counted before they are decoded, not grown by append.
func TestRunsMadeAtFinalSize(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{
		Containers:  []corev1.Container{{Name: "a", Args: []string{"1", "2", "3"}}, {Name: "b"}, {Name: "c"}},
		Tolerations: []corev1.Toleration{{Key: "x"}, {Key: "y"}, {Key: "z"}},
	}}
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Decoder{{}, {Values: NewValues(64)}} {
		var got corev1.Pod
		if err := d.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for name, lc := range map[string][2]int{
			"containers":  {len(got.Spec.Containers), cap(got.Spec.Containers)},
			"tolerations": {len(got.Spec.Tolerations), cap(got.Spec.Tolerations)},
			"args":        {len(got.Spec.Containers[0].Args), cap(got.Spec.Containers[0].Args)},
		} {
			if lc[0] != 3 || lc[1] != 3 {
				t.Errorf("values %v: %s has length %d, capacity %d, want 3 and 3", d.Values != nil, name, lc[0], lc[1])
			}
		}
	}
}
