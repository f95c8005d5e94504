package cache

import (
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

// NewSharedInformer returns a fanout shared informer for lw's objects, seen
// through client-go's interface; it is also a SharedIndexInformer, as
// client-go's is.
func NewSharedInformer(lw cache.ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration) cache.SharedInformer {
	return NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, cache.Indexers{})
}

// NewSharedIndexInformer returns a fanout shared informer with indexers,
// seen through client-go's interface. Handlers registered on it receive
// client-go's DeletedFinalStateUnknown.
func NewSharedIndexInformer(lw cache.ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
	return clientgo.NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, indexers)
}

// NewSharedIndexInformerWithOptions is NewSharedIndexInformer with
// client-go's options. ResyncPeriod, Indexers and ObjectDescription are
// honoured; the metrics Identifier and InformerMetricsProvider of client-go
// v0.36+ are not carried over (fanout names its informers with its own
// identifier type: use clientgo.NewSharedIndexInformerFunc to set it).
func NewSharedIndexInformerWithOptions(lw cache.ListerWatcher, exampleObject runtime.Object, options cache.SharedIndexInformerOptions) cache.SharedIndexInformer {
	describe := func(o *informer.SharedIndexInformerOptions) { o.ObjectDescription = options.ObjectDescription }
	return clientgo.NewSharedIndexInformerFunc(describe)(lw, exampleObject, options.ResyncPeriod, options.Indexers)
}

// NewInformerWithOptions returns a store and a fanout controller that keeps
// it in sync with options.ListerWatcher, calling options.Handler for each
// change; the store is an Indexer when options.Indexers is set. The
// Logger of client-go v0.36+ is honoured; the metrics Identifier and
// InformerMetricsProvider are not carried over.
func NewInformerWithOptions(options cache.InformerOptions) (cache.Store, cache.Controller) {
	opts := informer.InformerOptions{
		ObjectType:      options.ObjectType,
		Handler:         clientgo.FromClientGoHandler(options.Handler),
		ResyncPeriod:    options.ResyncPeriod,
		MinWatchTimeout: options.MinWatchTimeout,
		Indexers:        clientgo.FromClientGoIndexers(options.Indexers),
		Logger:          loggerOf(options),
	}
	if options.ListerWatcher != nil {
		opts.ListerWatcher = options.ListerWatcher
	}
	if options.Transform != nil {
		opts.Transform = informer.TransformFunc(options.Transform)
	}
	store, controller := informer.NewInformerWithOptions(opts)
	return clientGoStore(store), clientgo.WrapController(controller)
}

// NewInformer returns a store and a fanout controller that fills it from lw
// and calls h for each change.
//
// Deprecated: use NewInformerWithOptions, as client-go says.
func NewInformer(lw cache.ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h cache.ResourceEventHandler) (cache.Store, cache.Controller) {
	return NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h})
}

// NewIndexerInformer is NewInformer with an Indexer.
//
// Deprecated: use NewInformerWithOptions, as client-go says.
func NewIndexerInformer(lw cache.ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h cache.ResourceEventHandler, indexers cache.Indexers) (cache.Indexer, cache.Controller) {
	store, controller := NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Indexers: nonNil(indexers)})
	return store.(cache.Indexer), controller
}

// NewTransformingInformer is NewInformer with a transform.
//
// Deprecated: use NewInformerWithOptions, as client-go says.
func NewTransformingInformer(lw cache.ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h cache.ResourceEventHandler, transformer cache.TransformFunc) (cache.Store, cache.Controller) {
	return NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Transform: transformer})
}

// NewTransformingIndexerInformer is NewIndexerInformer with a transform.
//
// Deprecated: use NewInformerWithOptions, as client-go says.
func NewTransformingIndexerInformer(lw cache.ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h cache.ResourceEventHandler, indexers cache.Indexers, transformer cache.TransformFunc) (cache.Indexer, cache.Controller) {
	store, controller := NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Indexers: nonNil(indexers), Transform: transformer})
	return store.(cache.Indexer), controller
}

// nonNil returns indexers, or an empty set for nil, so that the store of an
// indexer constructor is an Indexer whatever it was given.
func nonNil(indexers cache.Indexers) cache.Indexers {
	if indexers == nil {
		return cache.Indexers{}
	}
	return indexers
}

// clientGoStore returns a fanout store as client-go sees it: an indexer
// is adapted so that it is a cache.Indexer; a plain store already is a
// cache.Store.
func clientGoStore(s informer.Store) cache.Store {
	if idx, ok := s.(informer.Indexer); ok {
		return clientgo.Indexer(idx)
	}
	return s
}

// loggerOf returns the Logger field of client-go's InformerOptions, which
// releases from v0.36 have; nil on v0.35 or when unset.
func loggerOf(options cache.InformerOptions) *klog.Logger {
	f := reflect.ValueOf(options).FieldByName("Logger")
	if !f.IsValid() {
		return nil
	}
	l, _ := f.Interface().(*klog.Logger)
	return l
}
