package deltafifo

import (
	"sync"

	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/internal/informermetrics"
)

// RealFIFOOptions configures a RealFIFO. Some combinations are invalid and
// make NewRealFIFOWithOptions panic; see there.
type RealFIFOOptions struct {
	// Logger receives the queue's log output; the queue's name is added to
	// it. The default is klog.Background().
	Logger *klog.Logger

	// Name replaces the default name "RealFIFO". A non-empty
	// Identifier.Name() takes precedence over it.
	Name string

	// KeyFunction maps objects to keys. The default is MetaNamespaceKeyFunc.
	KeyFunction KeyFunc

	// KnownObjects lists the objects the consumer already has. It is
	// required when AtomicEvents is false (Replace and Resync consult it)
	// and must be nil when AtomicEvents is true.
	KnownObjects KeyListerGetter

	// Transformer, if set, is applied to each object as it enters the
	// queue. See TransformFunc.
	Transformer TransformFunc

	// AtomicEvents makes Replace queue one ReplacedAll delta and Resync one
	// SyncAll delta, instead of one delta per object.
	AtomicEvents bool

	// UnlockWhileProcessing lets Pop and PopBatch release the queue's lock
	// while the process function runs, as long as fewer than two batches
	// (2000 deltas) are queued. Requires AtomicEvents.
	UnlockWhileProcessing bool

	// Identifier names the queue in metrics and traces. Its zero value
	// publishes no metrics.
	Identifier InformerNameAndResource

	// MetricsProvider creates the queue's metrics; nil means the provider
	// set with SetInformerMetricsProvider.
	MetricsProvider InformerMetricsProvider

	// EmitDeltaTypeBookmark makes Bookmark queue Bookmark deltas. Requires
	// AtomicEvents.
	EmitDeltaTypeBookmark bool
}

// realFIFOBatchSize is the largest batch PopBatch hands out, and half the
// queue length above which UnlockWhileProcessing keeps the lock.
const realFIFOBatchSize = 1000

// RealFIFO is a queue that hands out every change in the order it arrived,
// one Delta at a time (or a batch of them with PopBatch): nothing is merged
// or dropped, deletions included. It is what client-go v1.33+ feeds its
// informers from.
//
// A reflector is the producer and a single goroutine consumes with Pop or
// PopBatch. All methods are safe for concurrent use. RealFIFO starts no
// goroutines.
type RealFIFO struct {
	logger           klog.Logger
	name             string
	keyFunc          KeyFunc
	known            KeyListerGetter
	transformer      TransformFunc
	atomic           bool
	unlockWhileProc  bool
	emitBookmarks    bool
	identifier       InformerNameAndResource
	metrics          informermetrics.FIFOMetrics
	batchSize        int
	unlockQueueLimit int
	// latencyOn is false when the processing-latency metric is a no-op,
	// so that process calls need not be timed for it.
	latencyOn bool

	mu   sync.Mutex // guards the fields below; cond.L is &mu
	cond sync.Cond
	// items[head:] are the queued deltas, oldest first; items[:head] are
	// popped slots, cleared, reused once enough of them accumulate.
	items []Delta
	// keys[i] is the key of items[i], computed when it was queued.
	keys   []itemKey
	head   int
	sync   initialSync
	closed bool
	// scratch and scratchKeys are lent to one keyed pop at a time
	// (scratchBusy), so that a keyed pop allocates nothing.
	scratch     []Delta
	scratchKeys []string
	scratchBusy bool
	// batchKeys is the set batchLenLocked checks a long run's keys
	// against, emptied and kept for the next pop.
	batchKeys map[string]struct{}
}

// itemKey is the key of a queued delta; ok is false for a delta without
// one (the unkeyed deltas of AtomicEvents, or a delta whose transformed
// object has no key).
type itemKey struct {
	key string
	ok  bool
}

// Compile-time checks of the interfaces RealFIFO implements.
var (
	_ QueueWithBatch    = (*RealFIFO)(nil)
	_ TransformingStore = (*RealFIFO)(nil)
	_ DoneChecker       = (*RealFIFO)(nil)
)

// NewRealFIFO returns a non-atomic RealFIFO. knownObjects must not be nil.
//
// Deprecated: use NewRealFIFOWithOptions.
func NewRealFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter, transformer TransformFunc) *RealFIFO {
	return NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: keyFunc, KnownObjects: knownObjects, Transformer: transformer})
}

// NewRealFIFOWithOptions returns an empty, open RealFIFO.
//
// Like client-go, it panics on a combination of options that cannot work,
// since that is a programming error:
//   - AtomicEvents with KnownObjects set;
//   - AtomicEvents false with UnlockWhileProcessing, with
//     EmitDeltaTypeBookmark, or without KnownObjects.
func NewRealFIFOWithOptions(opts RealFIFOOptions) *RealFIFO {
	if opts.AtomicEvents {
		if opts.KnownObjects != nil {
			panic("coding error: knownObjects must not be provided when AtomicEvents is true")
		}
	} else {
		switch {
		case opts.UnlockWhileProcessing:
			panic("coding error: UnlockWhileProcessing must be false when AtomicEvents is false")
		case opts.KnownObjects == nil:
			panic("coding error: knownObjects must be provided when AtomicEvents is false")
		case opts.EmitDeltaTypeBookmark:
			panic("coding error: EmitDeltaTypeBookmark must be false when AtomicEvents is false")
		}
	}
	f := &RealFIFO{
		logger:           klog.Background(),
		name:             "RealFIFO",
		keyFunc:          opts.KeyFunction,
		known:            opts.KnownObjects,
		transformer:      opts.Transformer,
		atomic:           opts.AtomicEvents,
		unlockWhileProc:  opts.UnlockWhileProcessing,
		emitBookmarks:    opts.EmitDeltaTypeBookmark,
		identifier:       opts.Identifier,
		metrics:          informermetrics.NewFIFOMetrics(opts.Identifier, opts.MetricsProvider),
		batchSize:        realFIFOBatchSize,
		unlockQueueLimit: 2 * realFIFOBatchSize,
		sync:             newInitialSync(),
	}
	if f.keyFunc == nil {
		f.keyFunc = MetaNamespaceKeyFunc
	}
	if opts.Logger != nil {
		f.logger = *opts.Logger
	}
	if opts.Name != "" {
		f.name = opts.Name
	}
	if n := opts.Identifier.Name(); n != "" {
		f.name = n
	}
	f.logger = klog.LoggerWithName(f.logger, f.name)
	f.cond.L = &f.mu
	_, noLatency := f.metrics.ProcessingLatency.(informermetrics.Noop)
	f.latencyOn = !noLatency
	return f
}

// keyOf returns the key of obj, looking through a Deltas (its newest
// delta), a Delta and a DeletedFinalStateUnknown.
func (f *RealFIFO) keyOf(obj any) (string, error) {
	if d, ok := obj.(Deltas); ok {
		if len(d) == 0 {
			return "", KeyError{Obj: obj, Err: ErrZeroLengthDeltasObject}
		}
		obj = d.Newest().Object
	}
	if d, ok := obj.(Delta); ok {
		obj = d.Object
	}
	if tomb, ok := AsDeletedFinalStateUnknown(obj); ok {
		return tomb.Key, nil
	}
	return f.keyFunc(obj)
}

// Transformer returns the transform function given in the options, or nil.
func (f *RealFIFO) Transformer() TransformFunc { return f.transformer }

// Name returns the queue's name: Identifier.Name(), else Name, else
// "RealFIFO".
func (f *RealFIFO) Name() string { return f.name }

// Done returns a channel that is closed once HasSynced becomes true.
func (f *RealFIFO) Done() <-chan struct{} { return f.sync.done }

// HasSynced reports whether the initial population has been delivered: true
// once Add, Update or Delete was called before any Replace, or once every
// delta queued up to and including the first Replace has been processed.
// For RealFIFO a delta counts as delivered after its process function
// returns.
func (f *RealFIFO) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sync.hasSynced()
}

// HasSyncedChecker returns the queue itself as a DoneChecker that is done
// when HasSynced becomes true.
func (f *RealFIFO) HasSyncedChecker() DoneChecker { return f }

// Close marks the queue closed and wakes every waiting Pop. Pop and
// PopBatch keep returning queued deltas and return ErrFIFOClosed once the
// queue is empty. The producer methods keep working after Close.
func (f *RealFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *RealFIFO) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// Len returns the number of queued deltas. It is a fanout addition, not
// part of client-go's RealFIFO.
func (f *RealFIFO) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.items) - f.head
}
