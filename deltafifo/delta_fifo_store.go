package deltafifo

import "fmt"

// The Store-style methods below are client-go's DeltaFIFO API up to v0.32
// (it dropped them when DeltaFIFO stopped being a Store); they are kept so
// that programs written against it compile and behave the same.

// AddIfNotPresent queues obj, which must be a Deltas (as Pop returns),
// unless something is already queued for its key; it is how a consumer
// puts back what it popped. It counts as a first write for HasSynced.
func (f *DeltaFIFO) AddIfNotPresent(obj any) error {
	deltas, ok := obj.(Deltas)
	if !ok {
		return fmt.Errorf("object must be of type deltas, but got: %#v", obj)
	}
	key, err := f.KeyOf(deltas)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addIfNotPresentLocked(key, deltas)
	return nil
}

// addIfNotPresentLocked queues deltas under key unless key has something
// queued, and wakes Pop.
func (f *DeltaFIFO) addIfNotPresentLocked(key string, deltas Deltas) {
	f.sync.populate(0)
	e, stale := f.entryLocked(key)
	if e != nil {
		return
	}
	f.pushLocked(key, deltas, stale)
	f.cond.Broadcast()
}

// List returns the newest object of every queued key, in queue order.
func (f *DeltaFIFO) List() []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := make([]any, 0, len(f.queue)-f.head)
	for _, e := range f.queue[f.head:] {
		list = append(list, e.deltas.Newest().Object)
	}
	return list
}

// Get returns a copy of the Deltas queued for obj's key (see GetByKey).
func (f *DeltaFIFO) Get(obj any) (item any, exists bool, err error) {
	key, err := f.KeyOf(obj)
	if err != nil {
		return nil, false, KeyError{Obj: obj, Err: err}
	}
	return f.GetByKey(key)
}
