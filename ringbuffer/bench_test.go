package ringbuffer

import (
	"strconv"
	"testing"

	"k8s.io/utils/buffer"
)

// ring is the common surface of both implementations compared here.
type ring interface {
	WriteOne(any)
	ReadOne() (any, bool)
}

var impls = []struct {
	name string
	make func(size int) ring
}{
	{"fanout", func(size int) ring { return New[any](size) }},
	{"clientgo", func(size int) ring { return buffer.NewRingGrowing(size) }},
}

var sink any

// BenchmarkRing compares this package with k8s.io/utils/buffer.RingGrowing
// (client-go's listener buffer) in the same run. Sub-benchmark names end in
// impl=fanout or impl=clientgo, so `benchstat -col /impl` sets them side by
// side.
//
//   - steady: one write then one read, the buffer never holds more than one.
//   - burst=N: N writes then N reads, starting from client-go's listener size
//     1024, so the ring grows (and ours shrinks back).
//   - repeatedburst=N: the same burst on one long-lived ring, the pattern of a
//     handler that falls behind now and then.
func BenchmarkRing(b *testing.B) {
	v := any(&struct{ x int }{})
	for _, im := range impls {
		b.Run("op=steady/impl="+im.name, func(b *testing.B) {
			r := im.make(1024)
			b.ReportAllocs()
			for b.Loop() {
				r.WriteOne(v)
				sink, _ = r.ReadOne()
			}
		})
	}
	for _, n := range []int{100, 10000} {
		for _, im := range impls {
			b.Run("op=burst="+strconv.Itoa(n)+"/impl="+im.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r := im.make(1024)
					for range n {
						r.WriteOne(v)
					}
					for range n {
						sink, _ = r.ReadOne()
					}
				}
			})
		}
		for _, im := range impls {
			b.Run("op=repeatedburst="+strconv.Itoa(n)+"/impl="+im.name, func(b *testing.B) {
				r := im.make(1024)
				b.ReportAllocs()
				for b.Loop() {
					for range n {
						r.WriteOne(v)
					}
					for range n {
						sink, _ = r.ReadOne()
					}
				}
			})
		}
	}
}
