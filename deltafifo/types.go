package deltafifo

import (
	"errors"

	"github.com/kfanout/fanout/internal/informermetrics"
	"github.com/kfanout/fanout/internal/synctrack"
)

// DoneChecker is finished once its Done channel is closed. It is the same
// type as informer.DoneChecker.
type DoneChecker = synctrack.DoneChecker

// InformerNameAndResource identifies an informer in metrics.
type InformerNameAndResource = informermetrics.InformerNameAndResource

// InformerMetricsProvider creates the queue and store metrics.
type InformerMetricsProvider = informermetrics.InformerMetricsProvider

// TransformFunc changes an object before it enters a queue, for example to
// drop fields the controller does not need. It is called once per object as
// it is queued, may change the object in place, and must be idempotent,
// since objects already in the cache may be passed through it again.
type TransformFunc func(any) (any, error)

// DeltaType is the kind of change a Delta records.
type DeltaType string

// The kinds of change. Replaced, ReplacedAll, SyncAll and Bookmark are only
// produced when a queue is configured for them.
const (
	Added   DeltaType = "Added"
	Updated DeltaType = "Updated"
	Deleted DeltaType = "Deleted"
	// Replaced is emitted for each listed object on a relist when the queue
	// was asked for it (EmitDeltaTypeReplaced); otherwise Sync is used.
	Replaced DeltaType = "Replaced"
	// ReplacedAll carries a whole relist as one ReplacedAllInfo (RealFIFO in
	// atomic mode).
	ReplacedAll DeltaType = "ReplacedAll"
	// Sync is a periodic resync of an object that did not change.
	Sync DeltaType = "Sync"
	// SyncAll is a whole resync as one delta (RealFIFO in atomic mode).
	SyncAll DeltaType = "SyncAll"
	// Bookmark carries a watch bookmark's resource version as BookmarkInfo.
	Bookmark DeltaType = "Bookmark"
)

// Delta is one change to one object: its type and the object after the
// change (for Deleted, the last known state, possibly a
// DeletedFinalStateUnknown).
type Delta struct {
	Type   DeltaType
	Object any
}

// Deltas is the list of changes to one object, oldest first.
type Deltas []Delta

// Oldest returns the first delta, or nil if there is none.
func (d Deltas) Oldest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[0]
}

// Newest returns the last delta, or nil if there is none.
func (d Deltas) Newest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[len(d)-1]
}

// DeletedFinalStateUnknown is delivered to OnDelete when an object was
// deleted while the watch was down: a relist no longer had it. Obj is the
// last state the cache knew, which may be stale.
type DeletedFinalStateUnknown struct {
	Key string
	Obj any
}

// ReplacedAllInfo is the payload of a ReplacedAll delta.
type ReplacedAllInfo struct {
	// ResourceVersion is the one passed to Replace.
	ResourceVersion string
	// Objects are the listed objects, already transformed.
	Objects []any
}

// SyncAllInfo is the payload of a SyncAll delta.
type SyncAllInfo struct{}

// BookmarkInfo is the payload of a Bookmark delta.
type BookmarkInfo struct {
	// ResourceVersion is the one passed to Bookmark.
	ResourceVersion string
}

// ErrFIFOClosed is returned by Pop once the queue is closed and empty. Its
// text is client-go's.
var ErrFIFOClosed = errors.New("DeltaFIFO: manipulating with closed queue")

// ErrZeroLengthDeltasObject is returned by KeyOf for an empty Deltas.
var ErrZeroLengthDeltasObject = errors.New("0 length Deltas object; can't get key")

// PopProcessFunc processes one popped item. isInInitialList is true while
// the queue has not yet delivered its initial population.
type PopProcessFunc func(obj any, isInInitialList bool) error

// ProcessBatchFunc processes a batch of deltas popped together.
type ProcessBatchFunc func(deltas []Delta, isInInitialList bool) error

// ReflectorStore is what a reflector writes into.
type ReflectorStore interface {
	// Add records that obj was added.
	Add(obj any) error
	// Update records that obj changed.
	Update(obj any) error
	// Delete records that obj was deleted.
	Delete(obj any) error
	// Replace replaces the whole content with list, listed at resourceVersion.
	Replace(list []any, resourceVersion string) error
	// Resync asks for a periodic resync.
	Resync() error
}

// ReflectorBookmarkStore is implemented by stores that want watch bookmarks.
type ReflectorBookmarkStore interface {
	Bookmark(resourceVersion string) error
}

// TransformingStore is a ReflectorStore that transforms objects itself; the
// reflector uses its transformer for watch-list's temporary store.
type TransformingStore interface {
	ReflectorStore
	Transformer() TransformFunc
}

// Queue is a ReflectorStore that is drained by Pop.
type Queue interface {
	ReflectorStore
	// Pop blocks until an item is available, then calls process with it.
	// It returns ErrFIFOClosed once the queue is closed and drained.
	Pop(PopProcessFunc) (any, error)
	// HasSynced reports whether the initial population has been popped.
	HasSynced() bool
	// HasSyncedChecker is HasSynced as a DoneChecker.
	HasSyncedChecker() DoneChecker
	// Close makes Pop return ErrFIFOClosed once the queue is empty.
	Close()
}

// QueueWithBatch is a Queue that can pop several items at once.
type QueueWithBatch interface {
	Queue
	// PopBatch pops one batch and passes it to processBatch, or a single
	// item to processSingle.
	PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error
}

// KeyLister lists the keys of the objects it knows.
type KeyLister interface {
	ListKeys() []string
}

// KeyGetter returns an object by key.
type KeyGetter interface {
	GetByKey(key string) (value any, exists bool, err error)
}

// KeyListerGetter is what a queue consults as its KnownObjects: the store
// the queue feeds.
type KeyListerGetter interface {
	KeyLister
	KeyGetter
}
