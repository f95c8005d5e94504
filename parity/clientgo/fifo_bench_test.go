//go:build !clientgo035

// Needs client-go v0.36 or later: RealFIFOOptions' atomic and unlock options, PopBatch.
// Builds that link an older client-go set the tag of its minor: clientgo035
// or clientgo036 (Makefile, hack/compat.sh).

package parity

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/deltafifo"
)

// Side-by-side benchmarks of fanout's queues and client-go's, one
// sub-benchmark per implementation (impl=fanout, impl=clientgo), so that
// `benchstat -col /impl` puts them in adjacent columns.

// benchObjectCount is the number of distinct objects the benchmarks cycle
// through; it is larger than any queue depth used, so an added key is
// never already queued.
const benchObjectCount = 4096

var benchObjects = func() []any {
	out := make([]any, benchObjectCount)
	for i := range out {
		out[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace:       "bench",
			Name:            fmt.Sprintf("cm-%04d", i),
			ResourceVersion: fmt.Sprint(i),
		}}
	}
	return out
}()

// benchQueue is the part of both libraries' queues the benchmarks use.
type benchQueue interface {
	Add(obj any) error
	pop() error
}

type cgDeltaFIFO struct{ *cache.DeltaFIFO }

func (q cgDeltaFIFO) pop() error {
	_, err := q.Pop(func(any, bool) error { return nil })
	return err
}

type foDeltaFIFO struct{ *deltafifo.DeltaFIFO }

func (q foDeltaFIFO) pop() error {
	_, err := q.Pop(func(any, bool) error { return nil })
	return err
}

type cgRealFIFO struct{ *cache.RealFIFO }

func (q cgRealFIFO) pop() error {
	_, err := q.Pop(func(any, bool) error { return nil })
	return err
}

type foRealFIFO struct{ *deltafifo.RealFIFO }

func (q foRealFIFO) pop() error {
	_, err := q.Pop(func(any, bool) error { return nil })
	return err
}

// benchAddPop keeps depth items queued and measures one Add plus one Pop
// per iteration.
func benchAddPop(b *testing.B, q benchQueue, depth int) {
	for i := range depth {
		if err := q.Add(benchObjects[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := q.Add(benchObjects[(depth+i)%benchObjectCount]); err != nil {
			b.Fatal(err)
		}
		if err := q.pop(); err != nil {
			b.Fatal(err)
		}
	}
}

var benchDepths = []int{0, 1000}

func BenchmarkDeltaFIFOAddPop(b *testing.B) {
	for _, depth := range benchDepths {
		b.Run(fmt.Sprintf("depth=%d/impl=fanout", depth), func(b *testing.B) {
			benchAddPop(b, foDeltaFIFO{deltafifo.NewDeltaFIFOWithOptions(deltafifo.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})}, depth)
		})
		b.Run(fmt.Sprintf("depth=%d/impl=clientgo", depth), func(b *testing.B) {
			benchAddPop(b, cgDeltaFIFO{cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})}, depth)
		})
	}
}

// BenchmarkRealFIFOAddPop uses the informer's configuration: atomic,
// unlocking while processing, with bookmarks.
func BenchmarkRealFIFOAddPop(b *testing.B) {
	for _, depth := range benchDepths {
		b.Run(fmt.Sprintf("depth=%d/impl=fanout", depth), func(b *testing.B) {
			benchAddPop(b, foRealFIFO{deltafifo.NewRealFIFOWithOptions(deltafifo.RealFIFOOptions{
				AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true,
			})}, depth)
		})
		b.Run(fmt.Sprintf("depth=%d/impl=clientgo", depth), func(b *testing.B) {
			benchAddPop(b, cgRealFIFO{cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
				AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true,
			})}, depth)
		})
	}
}

// BenchmarkRealFIFOAddPopBatch adds 100 objects with distinct keys and
// drains them with one PopBatch per iteration.
func BenchmarkRealFIFOAddPopBatch(b *testing.B) {
	const batch = 100
	run := func(b *testing.B, add func(any) error, popBatch func() error) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			for j := range batch {
				if err := add(benchObjects[(i*batch+j)%benchObjectCount]); err != nil {
					b.Fatal(err)
				}
			}
			if err := popBatch(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("impl=fanout", func(b *testing.B) {
		q := deltafifo.NewRealFIFOWithOptions(deltafifo.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
		run(b, q.Add, func() error {
			return q.PopBatch(func([]deltafifo.Delta, bool) error { return nil }, func(any, bool) error { return nil })
		})
	})
	b.Run("impl=clientgo", func(b *testing.B) {
		q := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
		run(b, q.Add, func() error {
			return q.PopBatch(func([]cache.Delta, bool) error { return nil }, func(any, bool) error { return nil })
		})
	})
}
