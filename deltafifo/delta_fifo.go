package deltafifo

import (
	"sync"

	"k8s.io/klog/v2"
)

// DeltaFIFOOptions configures a DeltaFIFO. Every field is optional.
type DeltaFIFOOptions struct {
	// Logger receives the queue's log output; the queue's name is added to
	// it. The default is klog.Background().
	Logger *klog.Logger

	// Name replaces the default name "DeltaFIFO" in logs and in Name.
	Name string

	// KeyFunction maps objects to keys. The default is MetaNamespaceKeyFunc.
	KeyFunction KeyFunc

	// KnownObjects lists the objects the consumer already has, usually the
	// informer's store. It changes Delete (a deletion of a known key is
	// queued even if nothing is queued for it), Replace (known keys missing
	// from the new list get a DeletedFinalStateUnknown) and Resync (known
	// keys with nothing queued get a Sync). nil is allowed if missed
	// deletions are acceptable.
	KnownObjects KeyListerGetter

	// EmitDeltaTypeReplaced makes Replace queue Replaced deltas. When false
	// (the default, for compatibility) Replace queues Sync deltas.
	EmitDeltaTypeReplaced bool

	// Transformer, if set, is applied to each object as it enters the
	// queue. See TransformFunc.
	Transformer TransformFunc
}

// DeltaFIFO is a queue of keys, each with the list of changes (Deltas)
// that happened to its object since the consumer last popped it. A key is
// queued once, at the position of its first pending change; later changes
// are appended to its Deltas. Two adjacent deletions of the same key are
// collapsed into one; nothing else is merged.
//
// A reflector is the producer (Add, Update, Delete, Replace, Resync) and a
// single consumer calls Pop. The process function passed to Pop runs while
// the queue's lock is held, so it may update KnownObjects consistently with
// the queue, and a slow consumer slows the producer: every other method
// waits for it.
//
// All methods are safe for concurrent use. DeltaFIFO starts no goroutines.
type DeltaFIFO struct {
	logger      klog.Logger
	name        string
	keyFunc     KeyFunc
	known       KeyListerGetter
	transformer TransformFunc
	// replaceType is the type Replace emits: Replaced or Sync.
	replaceType DeltaType

	mu   sync.Mutex // guards the fields below; cond.L is &mu
	cond sync.Cond
	// queue[head:] holds each queued key once, with its pending Deltas,
	// in first-enqueue order; queue[:head] are popped slots, cleared. The
	// entry queue[i] has sequence number base+i.
	queue []queueEntry
	head  int
	base  int
	// index maps each queued key to its entry's sequence number. It may
	// also hold stale keys, popped since (see popLocked), whose numbers
	// are below base+head; stale counts them.
	index map[string]int
	stale int
	// indexPeak is the largest size index has grown or been allocated to;
	// a map never shrinks, so a large one is dropped once it drains.
	indexPeak int
	// chunked is set during a large Replace: new Deltas are then cut
	// from spare (see newDeltasLocked).
	chunked bool
	spare   Deltas
	sync    initialSync
	closed  bool
	// poppedKey holds the key popKeyed hands out, so that it allocates
	// no slice for it.
	poppedKey [1]string
}

// Compile-time checks of the interfaces DeltaFIFO implements.
var (
	_ Queue             = (*DeltaFIFO)(nil)
	_ TransformingStore = (*DeltaFIFO)(nil)
	_ DoneChecker       = (*DeltaFIFO)(nil)
)

// NewDeltaFIFO returns a DeltaFIFO that emits Sync for Replace.
//
// Deprecated: use NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction:
// keyFunc, KnownObjects: knownObjects}), and consider EmitDeltaTypeReplaced,
// so that a relist can be told apart from a periodic resync.
func NewDeltaFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter) *DeltaFIFO {
	return NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: keyFunc, KnownObjects: knownObjects})
}

// NewDeltaFIFOWithOptions returns an empty, open DeltaFIFO.
func NewDeltaFIFOWithOptions(opts DeltaFIFOOptions) *DeltaFIFO {
	f := &DeltaFIFO{
		logger:      klog.Background(),
		name:        "DeltaFIFO",
		keyFunc:     opts.KeyFunction,
		known:       opts.KnownObjects,
		transformer: opts.Transformer,
		replaceType: Sync,
		index:       map[string]int{},
		sync:        newInitialSync(),
	}
	if f.keyFunc == nil {
		f.keyFunc = MetaNamespaceKeyFunc
	}
	if opts.EmitDeltaTypeReplaced {
		f.replaceType = Replaced
	}
	if opts.Logger != nil {
		f.logger = *opts.Logger
	}
	if opts.Name != "" {
		f.name = opts.Name
	}
	f.logger = klog.LoggerWithName(f.logger, f.name)
	f.cond.L = &f.mu
	return f
}

// KeyOf returns the key of obj: the key of the newest object for a Deltas,
// the Key field for a DeletedFinalStateUnknown, otherwise the key
// function's result. An empty Deltas gives a KeyError wrapping
// ErrZeroLengthDeltasObject.
func (f *DeltaFIFO) KeyOf(obj any) (string, error) {
	if d, ok := obj.(Deltas); ok {
		if len(d) == 0 {
			return "", KeyError{Obj: obj, Err: ErrZeroLengthDeltasObject}
		}
		obj = d.Newest().Object
	}
	if tomb, ok := AsDeletedFinalStateUnknown(obj); ok {
		return tomb.Key, nil
	}
	return f.keyFunc(obj)
}

// Transformer returns the transform function given in the options, or nil.
func (f *DeltaFIFO) Transformer() TransformFunc { return f.transformer }

// Name returns the queue's name, "DeltaFIFO" unless the options set one.
func (f *DeltaFIFO) Name() string { return f.name }

// Done returns a channel that is closed once HasSynced becomes true.
func (f *DeltaFIFO) Done() <-chan struct{} { return f.sync.done }

// HasSynced reports whether the initial population has been delivered: true
// once Add, Update or Delete was called before any Replace, or once every
// key queued by the first Replace has been popped. For DeltaFIFO a key
// counts as delivered when Pop takes it, before its process function runs.
func (f *DeltaFIFO) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sync.hasSynced()
}

// HasSyncedChecker returns the queue itself as a DoneChecker that is done
// when HasSynced becomes true.
func (f *DeltaFIFO) HasSyncedChecker() DoneChecker { return f }

// Close marks the queue closed and wakes every waiting Pop. Pop keeps
// returning queued items and returns ErrFIFOClosed once the queue is empty.
// Add, Update, Delete, Replace and Resync keep working after Close.
func (f *DeltaFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *DeltaFIFO) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// ListKeys returns the queued keys in the order Pop will return them.
func (f *DeltaFIFO) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]string, 0, len(f.queue)-f.head)
	for _, e := range f.queue[f.head:] {
		keys = append(keys, e.key)
	}
	return keys
}

// GetByKey returns a copy of the Deltas queued for key. exists is false if
// nothing is queued for it. The error is always nil.
func (f *DeltaFIFO) GetByKey(key string) (item any, exists bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, _ := f.entryLocked(key)
	if e == nil {
		return nil, false, nil
	}
	return append(Deltas(nil), e.deltas...), true, nil
}

// Len returns the number of queued keys. It is a fanout addition, not part
// of client-go's DeltaFIFO.
func (f *DeltaFIFO) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue) - f.head
}
