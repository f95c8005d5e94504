package informer

import (
	"github.com/kfanout/fanout/deltafifo"
	"github.com/kfanout/fanout/internal/informermetrics"
	"github.com/kfanout/fanout/internal/synctrack"
)

// The queue vocabulary lives in package deltafifo; these aliases let a
// client-go user find every name in this one package.
type (
	// DoneChecker is finished once its Done channel is closed.
	DoneChecker = synctrack.DoneChecker
	// TransformFunc changes an object before it enters the queue.
	TransformFunc = deltafifo.TransformFunc
	// DeltaType is the kind of change a Delta records.
	DeltaType = deltafifo.DeltaType
	// Delta is one change to one object.
	Delta = deltafifo.Delta
	// Deltas is the list of changes to one object, oldest first.
	Deltas = deltafifo.Deltas
	// DeletedFinalStateUnknown is a tombstone for an object deleted while
	// the watch was down.
	DeletedFinalStateUnknown = deltafifo.DeletedFinalStateUnknown
	// ReplacedAllInfo is the payload of a ReplacedAll delta.
	ReplacedAllInfo = deltafifo.ReplacedAllInfo
	// SyncAllInfo is the payload of a SyncAll delta.
	SyncAllInfo = deltafifo.SyncAllInfo
	// BookmarkInfo is the payload of a Bookmark delta.
	BookmarkInfo = deltafifo.BookmarkInfo
	// PopProcessFunc processes one popped item.
	PopProcessFunc = deltafifo.PopProcessFunc
	// ProcessBatchFunc processes a batch of popped deltas.
	ProcessBatchFunc = deltafifo.ProcessBatchFunc
	// ReflectorStore is what a reflector writes into.
	ReflectorStore = deltafifo.ReflectorStore
	// ReflectorBookmarkStore is a store that wants watch bookmarks.
	ReflectorBookmarkStore = deltafifo.ReflectorBookmarkStore
	// TransformingStore is a store that transforms objects itself.
	TransformingStore = deltafifo.TransformingStore
	// Queue is a ReflectorStore drained by Pop.
	Queue = deltafifo.Queue
	// QueueWithBatch is a Queue that pops batches.
	QueueWithBatch = deltafifo.QueueWithBatch
	// KeyLister lists keys.
	KeyLister = deltafifo.KeyLister
	// KeyGetter gets an object by key.
	KeyGetter = deltafifo.KeyGetter
	// KeyListerGetter lists keys and gets objects by key.
	KeyListerGetter = deltafifo.KeyListerGetter
	// KeyFunc maps an object to its key.
	KeyFunc = deltafifo.KeyFunc
	// KeyError wraps a KeyFunc's error with the object.
	KeyError = deltafifo.KeyError
	// ExplicitKey is a key given instead of an object.
	ExplicitKey = deltafifo.ExplicitKey

	// InformerName is a process-wide unique informer name for metrics.
	InformerName = informermetrics.InformerName
	// InformerNameAndResource identifies an informer in metrics.
	InformerNameAndResource = informermetrics.InformerNameAndResource
	// InformerMetricsProvider creates client-go's informer metrics.
	InformerMetricsProvider = informermetrics.InformerMetricsProvider
	// GaugeMetric is a metric that can be set.
	GaugeMetric = informermetrics.GaugeMetric
	// HistogramMetric is a metric that observes samples.
	HistogramMetric = informermetrics.HistogramMetric
)

// The delta types.
const (
	Added       = deltafifo.Added
	Updated     = deltafifo.Updated
	Deleted     = deltafifo.Deleted
	Replaced    = deltafifo.Replaced
	ReplacedAll = deltafifo.ReplacedAll
	Sync        = deltafifo.Sync
	SyncAll     = deltafifo.SyncAll
	Bookmark    = deltafifo.Bookmark
)

var (
	// ErrFIFOClosed is returned by Pop once the queue is closed and empty.
	ErrFIFOClosed = deltafifo.ErrFIFOClosed
	// ErrZeroLengthDeltasObject is returned by KeyOf for an empty Deltas.
	ErrZeroLengthDeltasObject = deltafifo.ErrZeroLengthDeltasObject
)

// MetaNamespaceKeyFunc returns "namespace/name", or "name" for
// cluster-scoped objects; an ExplicitKey is returned unchanged.
func MetaNamespaceKeyFunc(obj any) (string, error) {
	return deltafifo.MetaNamespaceKeyFunc(obj)
}

// DeletionHandlingMetaNamespaceKeyFunc is MetaNamespaceKeyFunc that also
// accepts a DeletedFinalStateUnknown and returns its Key.
func DeletionHandlingMetaNamespaceKeyFunc(obj any) (string, error) {
	return deltafifo.DeletionHandlingMetaNamespaceKeyFunc(obj)
}

// NewInformerName reserves a process-wide unique informer name for metrics.
func NewInformerName(name string) (*InformerName, error) {
	return informermetrics.NewInformerName(name)
}

// ResetInformerNamesForTesting releases every reserved informer name.
func ResetInformerNamesForTesting() { informermetrics.ResetInformerNamesForTesting() }

// SetInformerMetricsProvider sets the process-wide informer metrics
// provider; only the first call has an effect.
func SetInformerMetricsProvider(p InformerMetricsProvider) {
	informermetrics.SetInformerMetricsProvider(p)
}

// AsDeletedFinalStateUnknown returns obj as a DeletedFinalStateUnknown if it
// is fanout's tombstone or client-go's cache.DeletedFinalStateUnknown,
// recognised by its shape since fanout does not import client-go. Every
// fanout function that accepts a deleted object (the DeletionHandling key
// functions, the handler adapters' OnDelete, typed handlers, the queues'
// KeyOf) uses it, so a program that takes fanout's helpers while its
// informers still come from client-go handles deletes correctly. A
// handler type of your own can call it where it would write
// obj.(cache.DeletedFinalStateUnknown).
func AsDeletedFinalStateUnknown(obj any) (DeletedFinalStateUnknown, bool) {
	return deltafifo.AsDeletedFinalStateUnknown(obj)
}
