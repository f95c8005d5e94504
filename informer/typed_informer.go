package informer

import "fmt"

// TypedSharedIndexInformer is a SharedIndexInformer with typed handlers
// and indexers for objects of type T.
type TypedSharedIndexInformer[T Object] interface {
	SharedIndexInformer
	// AddTypedEventHandler registers a typed handler, with at most one
	// HandlerOptions.
	AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error)
	// AddTypedIndexers adds typed indexers.
	AddTypedIndexers(indexers TypedIndexers[T]) error
	// GetTypedIndexer returns the cache as a TypedIndexer.
	GetTypedIndexer() TypedIndexer[T]
}

// NewTypedSharedIndexInformer wraps informer, whose objects must all be of
// type T. Over a FanoutInformer the result is a FanoutInformer too.
func NewTypedSharedIndexInformer[T Object](informer SharedIndexInformer) TypedSharedIndexInformer[T] {
	if fi, ok := informer.(FanoutInformer); ok {
		return typedFanoutInformer[T]{typedSharedIndexInformer[T]{informer}, fi}
	}
	return typedSharedIndexInformer[T]{informer}
}

type typedSharedIndexInformer[T Object] struct {
	SharedIndexInformer
}

func (s typedSharedIndexInformer[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errNilHandler
	}
	var o HandlerOptions
	switch len(options) {
	case 0:
	case 1:
		o = options[0]
	default:
		return nil, fmt.Errorf("at most one HandlerOptions may be passed, got %d", len(options))
	}
	return s.AddEventHandlerWithOptions(typedHandler[T]{handler}, o)
}

func (s typedSharedIndexInformer[T]) AddTypedIndexers(indexers TypedIndexers[T]) error {
	return s.AddIndexers(TypedIndexersToIndexers(indexers))
}

func (s typedSharedIndexInformer[T]) GetTypedIndexer() TypedIndexer[T] {
	return NewTypedIndexer[T](s.GetIndexer())
}
