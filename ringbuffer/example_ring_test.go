package ringbuffer_test

import (
	"fmt"

	"github.com/kfanout/fanout/ringbuffer"
)

// The zero Ring is ready to use; it grows as items are written and hands
// them back in order.
func ExampleRing() {
	var r ringbuffer.Ring[string]
	for _, s := range []string{"a", "b", "c"} {
		r.WriteOne(s)
	}
	first, _ := r.ReadOne()
	fmt.Println(first, r.Len())
	for v := range r.All() {
		fmt.Println(v)
	}
	// Output:
	// a 2
	// b
	// c
}

// New sets the initial capacity; a full ring doubles.
func ExampleNew() {
	r := ringbuffer.New[int](2)
	for i := range 3 {
		r.WriteOne(i)
	}
	fmt.Println(r.Len(), r.Cap())
	// Output: 3 4
}
