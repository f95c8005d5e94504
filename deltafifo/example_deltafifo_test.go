package deltafifo_test

import (
	"fmt"

	"github.com/kfanout/fanout/deltafifo"
)

// A DeltaFIFO queues each key once, with every change made to it since it
// was last popped.
func ExampleDeltaFIFO() {
	keyOf := func(obj any) (string, error) { return obj.(string)[:1], nil }
	f := deltafifo.NewDeltaFIFOWithOptions(deltafifo.DeltaFIFOOptions{KeyFunction: keyOf})
	_ = f.Add("a1")
	_ = f.Add("b1")
	_ = f.Update("a2")
	fmt.Println(f.Len())
	for f.Len() > 0 {
		_, _ = f.Pop(func(obj any, _ bool) error {
			for _, d := range obj.(deltafifo.Deltas) {
				fmt.Println(d.Type, d.Object)
			}
			return nil
		})
	}
	// Output:
	// 2
	// Added a1
	// Updated a2
	// Added b1
}

// A RealFIFO keeps every change as its own item, in order.
func ExampleRealFIFO() {
	keyOf := func(obj any) (string, error) { return obj.(string)[:1], nil }
	f := deltafifo.NewRealFIFOWithOptions(deltafifo.RealFIFOOptions{KeyFunction: keyOf, KnownObjects: emptyStore{}})
	_ = f.Add("a1")
	_ = f.Add("b1")
	_ = f.Update("a2")
	fmt.Println(f.Len())
	// Output: 3
}

// emptyStore is a KeyListerGetter with nothing in it.
type emptyStore struct{}

func (emptyStore) ListKeys() []string                 { return nil }
func (emptyStore) GetByKey(string) (any, bool, error) { return nil, false, nil }
