package deltafifo

import (
	"sync"
)

// FIFO is client-go's simple producer/consumer queue: it holds the latest
// object per key, and Pop hands out each queued key once, in the order the
// keys were first added. Adding an object whose key is queued replaces the
// object but keeps its place; deleting an object drops it (Pop skips its
// key). It keeps no history of changes (use DeltaFIFO or RealFIFO for that)
// and does not know what was popped, so it suits a consumer that only needs
// the latest state of every key. All methods are safe for concurrent use.
//
// HasSynced follows client-go v0.37: it is true once the first Replace's
// objects have all been popped and processed, or after an Add, Update or
// Delete that comes before any Replace.
type FIFO struct {
	keyFunc KeyFunc

	mu     sync.Mutex // guards the fields below; cond.L is &mu
	cond   sync.Cond
	items  map[string]any // the latest object of every key in queue, unless deleted
	queue  []string       // keys in pop order, each at most once
	sync   initialSync
	closed bool
	lastRV string // of the last Replace or Bookmark
}

var (
	_ Queue       = (*FIFO)(nil)
	_ DoneChecker = (*FIFO)(nil)
)

// NewFIFO returns an empty FIFO that keys objects with keyFunc.
func NewFIFO(keyFunc KeyFunc) *FIFO {
	f := &FIFO{
		keyFunc: keyFunc,
		items:   map[string]any{},
		sync:    newInitialSync(),
	}
	f.cond.L = &f.mu
	return f
}

// keyOf returns obj's key, or the key function's error as a KeyError.
func (f *FIFO) keyOf(obj any) (string, error) {
	key, err := f.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// Name returns "FIFO", the name of every FIFO in HasSynced's DoneChecker.
func (f *FIFO) Name() string { return "FIFO" }

// Done is closed once HasSynced is true.
func (f *FIFO) Done() <-chan struct{} { return f.sync.done }

// HasSynced reports whether the initial population has been popped (see
// the type's doc).
func (f *FIFO) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sync.hasSynced()
}

// HasSyncedChecker returns the FIFO itself, whose Done channel is closed
// once HasSynced is true.
func (f *FIFO) HasSyncedChecker() DoneChecker { return f }

// Close makes Pop return ErrFIFOClosed once the queue is empty, and wakes
// a waiting Pop.
func (f *FIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close was called.
func (f *FIFO) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// Add stores obj under its key; a key not yet queued goes to the end of
// the queue.
func (f *FIFO) Add(obj any) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	if _, queued := f.items[key]; !queued {
		f.queue = append(f.queue, key)
	}
	f.items[key] = obj
	f.cond.Broadcast()
	return nil
}

// Update is Add.
func (f *FIFO) Update(obj any) error { return f.Add(obj) }

// Delete drops the object stored under obj's key, so that Pop skips it.
// Deleting a key that holds nothing is not an error.
func (f *FIFO) Delete(obj any) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(0)
	delete(f.items, key)
	return nil
}

// AddIfNotPresent stores obj unless its key already holds an object. It is
// client-go's FIFO API up to v0.32, kept for programs written against it.
func (f *FIFO) AddIfNotPresent(obj any) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addIfNotPresentLocked(key, obj)
	return nil
}

// addIfNotPresentLocked queues obj under key unless key holds an object.
func (f *FIFO) addIfNotPresentLocked(key string, obj any) {
	f.sync.populate(0)
	if _, queued := f.items[key]; queued {
		return
	}
	f.queue = append(f.queue, key)
	f.items[key] = obj
	f.cond.Broadcast()
}

// List returns the stored objects in no particular order (client-go v0.32
// API).
func (f *FIFO) List() []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := make([]any, 0, len(f.items))
	for _, obj := range f.items {
		list = append(list, obj)
	}
	return list
}

// ListKeys returns the keys of the stored objects in no particular order
// (client-go v0.32 API).
func (f *FIFO) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]string, 0, len(f.items))
	for key := range f.items {
		keys = append(keys, key)
	}
	return keys
}

// Get returns the object stored under obj's key (client-go v0.32 API).
func (f *FIFO) Get(obj any) (item any, exists bool, err error) {
	key, err := f.keyOf(obj)
	if err != nil {
		return nil, false, err
	}
	return f.GetByKey(key)
}

// GetByKey returns the object stored under key; the error is always nil
// (client-go v0.32 API).
func (f *FIFO) GetByKey(key string) (item any, exists bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	item, exists = f.items[key]
	return item, exists, nil
}

// Pop waits until a key with an object is queued, removes it, and calls
// process with the object and whether it belongs to the initial
// population, under the queue's lock (process must not call the FIFO). It
// returns the object and process's error; an ErrRequeue puts the object
// back unless its key was queued again meanwhile, and Pop returns its Err.
// Once the FIFO is closed and empty, Pop returns ErrFIFOClosed.
func (f *FIFO) Pop(process PopProcessFunc) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		for len(f.queue) == 0 {
			if f.closed {
				return nil, ErrFIFOClosed
			}
			f.cond.Wait()
		}
		initial := !f.sync.hasSynced()
		key := f.queue[0]
		f.queue[0] = ""
		f.queue = f.queue[1:]
		// As in client-go v0.37, a popped key counts towards the initial
		// population only when Pop returns, after process.
		defer f.sync.delivered(1)
		obj, ok := f.items[key]
		if !ok {
			continue // deleted while queued
		}
		delete(f.items, key)
		requeue, err := requeueError(process(obj, initial))
		if requeue {
			f.addIfNotPresentLocked(key, obj)
		}
		return obj, err
	}
}

// Replace makes list the FIFO's whole content, queued in no particular
// order; what was queued before is dropped. The first Replace sets the
// initial population.
func (f *FIFO) Replace(list []any, resourceVersion string) error {
	items := make(map[string]any, len(list))
	for _, obj := range list {
		key, err := f.keyFunc(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		items[key] = obj
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.populate(len(items))
	f.lastRV = resourceVersion
	f.items = items
	clear(f.queue)
	f.queue = f.queue[:0]
	for key := range items {
		f.queue = append(f.queue, key)
	}
	if len(f.queue) > 0 {
		f.cond.Broadcast()
	}
	return nil
}

// Resync queues every stored key that is not queued.
func (f *FIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	queued := make(map[string]struct{}, len(f.queue))
	for _, key := range f.queue {
		queued[key] = struct{}{}
	}
	for key := range f.items {
		if _, ok := queued[key]; !ok {
			f.queue = append(f.queue, key)
		}
	}
	if len(f.queue) > 0 {
		f.cond.Broadcast()
	}
	return nil
}

// Bookmark records resourceVersion as the last one the FIFO has seen. The
// FIFO keeps nothing else of it; with LastStoreSyncResourceVersion it makes
// the FIFO a Store, as it was in client-go up to v0.32.
func (f *FIFO) Bookmark(resourceVersion string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastRV = resourceVersion
}

// LastStoreSyncResourceVersion returns the resource version of the last
// Replace or Bookmark.
func (f *FIFO) LastStoreSyncResourceVersion() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastRV
}
