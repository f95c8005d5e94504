package deltafifo

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// benchList returns n ConfigMaps in namespace "bench", named cm-<i>.
func benchList(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "bench", Name: fmt.Sprintf("cm-%06d", i), ResourceVersion: "1",
		}}
	}
	return out
}

// emptyKnown is a KeyListerGetter with nothing in it, as an informer's
// store is before its first list.
type emptyKnown struct{}

func (emptyKnown) ListKeys() []string                 { return nil }
func (emptyKnown) GetByKey(string) (any, bool, error) { return nil, false, nil }

// BenchmarkDeltaFIFOReplacePop measures an initial list: one Replace of
// 100k objects into an empty queue, then a Pop of every key.
func BenchmarkDeltaFIFOReplacePop(b *testing.B) {
	list := benchList(100_000)
	noop := func(any, bool) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: emptyKnown{}, EmitDeltaTypeReplaced: true})
		if err := f.Replace(list, "1"); err != nil {
			b.Fatal(err)
		}
		for range list {
			if _, err := f.Pop(noop); err != nil {
				b.Fatal(err)
			}
		}
		if !f.HasSynced() {
			b.Fatal("not synced after popping the whole list")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(list)), "ns/object")
}

// BenchmarkDeltaFIFOUpdatePop measures the steady state of a watch: one
// Update and one Pop per iteration, with depth keys queued.
func BenchmarkDeltaFIFOUpdatePop(b *testing.B) {
	list := benchList(4096)
	noop := func(any, bool) error { return nil }
	for _, depth := range []int{0, 100} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: emptyKnown{}, EmitDeltaTypeReplaced: true})
			for i := range depth {
				if err := f.Update(list[i]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := f.Update(list[(depth+i)%len(list)]); err != nil {
					b.Fatal(err)
				}
				if _, err := f.Pop(noop); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
