package tagproto

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestValuesShare decodes three Pods of one Deployment and requires that
// what the last two have in common is one value: the labels map, the
// containers' backing array, the owner reference's pointers, and that
// shared slices have no spare capacity an append could write into.
func TestValuesShare(t *testing.T) {
	pods := benchPods(t, 60)
	d := Decoder{Strings: NewTable(1 << 10).String, Values: NewValues(1 << 10)}
	// A value is kept the second time it is met, shared from the third.
	var first, a, b corev1.Pod
	for i, p := range []*corev1.Pod{&first, &a, &b} {
		if err := d.Unmarshal(pods[20*i], p); err != nil {
			t.Fatal(err)
		}
	}
	if a.Name == b.Name {
		t.Fatal("the two Pods are the same Pod")
	}
	if reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
		t.Error("equal labels are two maps")
	}
	if &a.Spec.Containers[0] != &b.Spec.Containers[0] {
		t.Error("equal containers are two slices")
	}
	if len(a.Spec.Containers) != cap(a.Spec.Containers) {
		t.Errorf("shared containers have capacity %d for %d", cap(a.Spec.Containers), len(a.Spec.Containers))
	}
	if a.OwnerReferences[0].Controller != b.OwnerReferences[0].Controller {
		t.Error("equal owner references are two values")
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
