package informer

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// benchConfigMaps returns n ConfigMaps in namespace "bench" at resource
// version rv.
func benchConfigMaps(n int, rv string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "bench", Name: fmt.Sprintf("cm-%06d", i), ResourceVersion: rv,
		}}
	}
	return out
}

// BenchmarkProcessDeltas measures the informer's side of a popped item:
// the store write and the handler call (a no-op), as the informer does it
// for DeltaFIFO (one Deltas at a time) and for RealFIFO's batches.
func BenchmarkProcessDeltas(b *testing.B) {
	const n = 10_000
	adds := benchConfigMaps(n, "1")
	updates := benchConfigMaps(n, "2")
	handler := ResourceEventHandlerFuncs{}
	logger := klog.Background()
	b.Run("mode=single", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{})
			for _, objs := range [][]any{adds, updates} {
				for _, obj := range objs {
					if err := process(logger, handler, store, popped{Deltas: Deltas{{Type: Replaced, Object: obj}}, IsInInitialList: true}, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(2*n), "ns/delta")
	})
	b.Run("mode=batch", func(b *testing.B) {
		batch := make([]Delta, 1000)
		b.ReportAllocs()
		for b.Loop() {
			store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{})
			for _, objs := range [][]any{adds, updates} {
				for i := 0; i < n; i += len(batch) {
					for j := range batch {
						batch[j] = Delta{Type: Replaced, Object: objs[i+j]}
					}
					if err := process(logger, handler, store, popped{Deltas: batch, Batch: true, IsInInitialList: true}, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(2*n), "ns/delta")
	})
}
