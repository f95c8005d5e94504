package informer

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/deltafifo"
	"github.com/kfanout/fanout/internal/features"
)

// InformerOptions configures NewInformerWithOptions.
type InformerOptions struct {
	// Logger is used for the queue and the processing; klog.Background()
	// if nil.
	Logger *klog.Logger
	// ListerWatcher is the source of objects. Required.
	ListerWatcher ListerWatcher
	// ObjectType is an example of the objects the source returns.
	ObjectType runtime.Object
	// Handler receives the notifications, on the processing goroutine.
	Handler ResourceEventHandler
	// ResyncPeriod is how often every object is delivered again as an
	// update; 0 never.
	ResyncPeriod time.Duration
	// MinWatchTimeout is the lower bound of the watch timeout.
	MinWatchTimeout time.Duration
	// Indexers, when not nil, makes the returned store an Indexer.
	Indexers Indexers
	// Transform is applied to each object as it enters the queue.
	Transform TransformFunc
	// Identifier names the informer in metrics.
	Identifier InformerNameAndResource
	// InformerMetricsProvider overrides the global metrics provider.
	InformerMetricsProvider InformerMetricsProvider
}

// NewInformerWithOptions returns a store and a controller that keeps it in
// sync with options.ListerWatcher, calling options.Handler synchronously
// for each change. The store is an Indexer when options.Indexers is set.
func NewInformerWithOptions(options InformerOptions) (Store, Controller) {
	metrics := WithStoreMetrics(options.Identifier, options.InformerMetricsProvider)
	var store Store
	if options.Indexers == nil {
		store = NewStore(DeletionHandlingMetaNamespaceKeyFunc, metrics)
	} else {
		store = NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, options.Indexers, metrics)
	}
	return store, newInformer(store, options)
}

// NewInformer returns a store and a controller that fills it from lw and
// calls h for each change.
//
// Deprecated: use NewInformerWithOptions.
func NewInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler) (Store, Controller) {
	store := NewStore(DeletionHandlingMetaNamespaceKeyFunc)
	return store, newInformer(store, InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod})
}

// NewIndexerInformer is NewInformer with an Indexer.
//
// Deprecated: use NewInformerWithOptions.
func NewIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers) (Indexer, Controller) {
	idx := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, indexers)
	return idx, newInformer(idx, InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Indexers: indexers})
}

// NewTransformingInformer is NewInformer with a transform.
//
// Deprecated: use NewInformerWithOptions.
func NewTransformingInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, transformer TransformFunc) (Store, Controller) {
	store := NewStore(DeletionHandlingMetaNamespaceKeyFunc)
	return store, newInformer(store, InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Transform: transformer})
}

// NewTransformingIndexerInformer is NewIndexerInformer with a transform.
//
// Deprecated: use NewInformerWithOptions.
func NewTransformingIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers, transformer TransformFunc) (Indexer, Controller) {
	idx := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, indexers)
	return idx, newInformer(idx, InformerOptions{ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Indexers: indexers, Transform: transformer})
}

func newInformer(store Store, options InformerOptions) Controller {
	logger := klog.Background()
	if options.Logger != nil {
		logger = *options.Logger
	}
	handler := options.Handler
	if handler == nil {
		handler = ResourceEventHandlerFuncs{}
	}
	queue := newQueue(logger, options.ObjectType, store, options.Transform, options.Identifier, options.InformerMetricsProvider, nil)
	return New(&Config{
		Queue:            queue,
		ListerWatcher:    options.ListerWatcher,
		ObjectType:       options.ObjectType,
		FullResyncPeriod: options.ResyncPeriod,
		MinWatchTimeout:  options.MinWatchTimeout,
		Process:          processDeltasFunc(logger, handler, store),
		ProcessBatch: func(deltas []Delta, isInInitialList bool) error {
			return process(logger, handler, store, popped{Deltas: deltas, Batch: true, IsInInitialList: isInInitialList}, nil)
		},
	})
}

// newQueue builds the queue that feeds an informer. In order (the default,
// as in client-go) it is client-go v0.37.2's RealFIFO, atomic unless the
// AtomicFIFO gate is off; otherwise it is the DeltaFIFO with Replaced
// deltas and the store as known objects. A nil inOrder follows the
// InOrderInformers gate.
func newQueue(logger klog.Logger, objectType any, store Store, transform TransformFunc, id InformerNameAndResource, metrics InformerMetricsProvider, inOrder *bool) Queue {
	if !resolveInOrder(inOrder) {
		return deltafifo.NewDeltaFIFOWithOptions(deltafifo.DeltaFIFOOptions{
			Logger:                &logger,
			Name:                  queueName("DeltaFIFO", objectType),
			KnownObjects:          store,
			EmitDeltaTypeReplaced: true,
			Transformer:           transform,
		})
	}
	opts := deltafifo.RealFIFOOptions{
		Logger:          &logger,
		Name:            queueName("RealFIFO", objectType),
		KeyFunction:     MetaNamespaceKeyFunc,
		Transformer:     transform,
		Identifier:      id,
		MetricsProvider: metrics,
	}
	if features.Enabled(features.AtomicFIFO) {
		opts.AtomicEvents = true
		opts.UnlockWhileProcessing = features.Enabled(features.UnlockWhileProcessingFIFO)
		opts.EmitDeltaTypeBookmark = true
	} else {
		opts.KnownObjects = store
	}
	return deltafifo.NewRealFIFOWithOptions(opts)
}
