package informer

import (
	"container/heap"
	"errors"
	"sync"
)

// LessFunc orders the objects of a Heap: it reports whether a pops before b.
type LessFunc func(a, b any) bool

// Heap is client-go's thread-safe priority queue of objects, one per key:
// Pop waits for and removes the least object by a LessFunc. Adding an
// object whose key is present replaces it and reorders the heap. Unlike
// the FIFOs, it has no process function and no sync tracking.
type Heap struct {
	mu     sync.Mutex // guards the fields below; cond.L is &mu
	cond   sync.Cond
	data   heapData
	closed bool
}

// errHeapClosed is what writes and Pop return once the heap is closed
// (client-go's text).
var errHeapClosed = errors.New("heap is closed")

// NewHeap returns an empty Heap that keys objects with keyFn and orders
// them with lessFn.
func NewHeap(keyFn KeyFunc, lessFn LessFunc) *Heap {
	h := &Heap{data: heapData{keyFunc: keyFn, less: lessFn, index: map[string]int{}}}
	h.cond.L = &h.mu
	return h
}

// Close makes every later write fail and wakes waiting Pops; Pop still
// returns the objects left, then fails.
func (h *Heap) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.cond.Broadcast()
}

// IsClosed reports whether Close was called.
func (h *Heap) IsClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// Add inserts obj, or replaces the object with its key and reorders.
func (h *Heap) Add(obj any) error {
	if _, err := h.data.keyFunc(obj); err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	return h.BulkAdd([]any{obj})
}

// Update is Add.
func (h *Heap) Update(obj any) error { return h.Add(obj) }

// BulkAdd adds every object of list under one lock, stopping at the first
// key error (the objects before it stay added).
func (h *Heap) BulkAdd(list []any) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errHeapClosed
	}
	for _, obj := range list {
		key, err := h.data.keyFunc(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		if i, ok := h.data.index[key]; ok {
			h.data.items[i].obj = obj
			heap.Fix(&h.data, i)
		} else {
			heap.Push(&h.data, heapEntry{key: key, obj: obj})
		}
	}
	h.cond.Broadcast()
	return nil
}

// AddIfNotPresent inserts obj unless an object with its key is present.
func (h *Heap) AddIfNotPresent(obj any) error {
	key, err := h.data.keyFunc(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errHeapClosed
	}
	if _, ok := h.data.index[key]; !ok {
		heap.Push(&h.data, heapEntry{key: key, obj: obj})
	}
	h.cond.Broadcast()
	return nil
}

// Delete removes the object with obj's key; it is an error if there is
// none.
func (h *Heap) Delete(obj any) error {
	key, err := h.data.keyFunc(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	i, ok := h.data.index[key]
	if !ok {
		return errors.New("object not found")
	}
	heap.Remove(&h.data, i)
	return nil
}

// Pop waits until the heap holds an object and removes and returns the
// least one. Once the heap is closed and empty it returns an error.
func (h *Heap) Pop() (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.data.items) == 0 {
		if h.closed {
			return nil, errHeapClosed
		}
		h.cond.Wait()
	}
	return heap.Pop(&h.data).(heapEntry).obj, nil
}

// List returns the objects in no particular order.
func (h *Heap) List() []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	list := make([]any, 0, len(h.data.items))
	for _, e := range h.data.items {
		list = append(list, e.obj)
	}
	return list
}

// ListKeys returns the keys in no particular order.
func (h *Heap) ListKeys() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := make([]string, 0, len(h.data.items))
	for _, e := range h.data.items {
		keys = append(keys, e.key)
	}
	return keys
}

// Get returns the object with obj's key.
func (h *Heap) Get(obj any) (any, bool, error) {
	key, err := h.data.keyFunc(obj)
	if err != nil {
		return nil, false, KeyError{Obj: obj, Err: err}
	}
	return h.GetByKey(key)
}

// GetByKey returns the object with key; the error is always nil.
func (h *Heap) GetByKey(key string) (any, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	i, ok := h.data.index[key]
	if !ok {
		return nil, false, nil
	}
	return h.data.items[i].obj, true, nil
}

// heapEntry is one object of a Heap with its key.
type heapEntry struct {
	key string
	obj any
}

// heapData is the container/heap implementation behind Heap: a binary
// heap of entries plus the position of every key in it.
type heapData struct {
	keyFunc KeyFunc
	less    LessFunc
	items   []heapEntry
	index   map[string]int // key -> position in items
}

func (d *heapData) Len() int { return len(d.items) }

func (d *heapData) Less(i, j int) bool { return d.less(d.items[i].obj, d.items[j].obj) }

func (d *heapData) Swap(i, j int) {
	d.items[i], d.items[j] = d.items[j], d.items[i]
	d.index[d.items[i].key] = i
	d.index[d.items[j].key] = j
}

// Push appends an entry; container/heap then moves it into place.
func (d *heapData) Push(x any) {
	e := x.(heapEntry)
	d.index[e.key] = len(d.items)
	d.items = append(d.items, e)
}

// Pop removes the last entry; container/heap has moved the one to pop
// there.
func (d *heapData) Pop() any {
	n := len(d.items) - 1
	e := d.items[n]
	d.items[n] = heapEntry{}
	d.items = d.items[:n]
	delete(d.index, e.key)
	return e
}
