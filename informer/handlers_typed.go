package informer

import "strings"

// TypedResourceEventHandler is ResourceEventHandler for objects of one
// type T. Deletions arrive as DeletedObject[T], which also covers objects
// whose final state is unknown.
type TypedResourceEventHandler[T Object] interface {
	OnAdd(obj T, isInInitialList bool)
	OnUpdate(oldObj, newObj T)
	OnDelete(obj DeletedObject[T])
}

// DeletedObject describes a deleted object of type T.
//
// Its methods work whether or not the object itself is known, so an
// OnDelete handler can always get the key and the name, and can log it with
// klog.KObj.
type DeletedObject[T Object] struct {
	// OptionalObj is the deleted object. It may be an older state than the
	// one that was deleted, or the zero T when no copy of the object was
	// known at all.
	OptionalObj T
	// FinalStateUnknown is nil when OptionalObj is the state at deletion;
	// otherwise it is the tombstone the informer produced, with the key.
	FinalStateUnknown *DeletedFinalStateUnknown
}

// GetObjectName returns the namespace and name of the deleted object. A
// tombstone's key is split at its first "/"; further slashes stay in the
// name.
func (d DeletedObject[T]) GetObjectName() ObjectName {
	if d.FinalStateUnknown != nil {
		ns, name, found := strings.Cut(d.FinalStateUnknown.Key, "/")
		if !found {
			return ObjectName{Name: ns}
		}
		return ObjectName{Namespace: ns, Name: name}
	}
	var zero T
	if d.OptionalObj == zero {
		return ObjectName{}
	}
	return ObjectName{Namespace: d.OptionalObj.GetNamespace(), Name: d.OptionalObj.GetName()}
}

// GetName returns the name, without the namespace.
func (d DeletedObject[T]) GetName() string { return d.GetObjectName().Name }

// GetNamespace returns the namespace, or "" for cluster-scoped objects.
func (d DeletedObject[T]) GetNamespace() string { return d.GetObjectName().Namespace }

// GetKey returns the key the object was stored under: the tombstone's key,
// or "namespace/name" ("name" when cluster-scoped), or "" when nothing is
// known.
func (d DeletedObject[T]) GetKey() string {
	if d.FinalStateUnknown != nil {
		return d.FinalStateUnknown.Key
	}
	var zero T
	if d.OptionalObj == zero {
		return ""
	}
	return d.GetObjectName().String()
}

// TypedResourceEventHandlerFuncs is TypedResourceEventHandler made of
// optional functions; a nil function ignores its notification.
type TypedResourceEventHandlerFuncs[T Object] struct {
	AddFunc    func(obj T)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj DeletedObject[T])
}

// OnAdd calls AddFunc, if set.
func (r TypedResourceEventHandlerFuncs[T]) OnAdd(obj T, _ bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (r TypedResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set.
func (r TypedResourceEventHandlerFuncs[T]) OnDelete(obj DeletedObject[T]) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(obj)
	}
}

// TypedResourceEventHandlerDetailedFuncs is TypedResourceEventHandlerFuncs
// whose AddFunc also receives isInInitialList.
type TypedResourceEventHandlerDetailedFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj DeletedObject[T])
}

// OnAdd calls AddFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnUpdate(oldObj, newObj T) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnDelete(obj DeletedObject[T]) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(obj)
	}
}

// TypedFilteringResourceEventHandler is FilteringResourceEventHandler for
// one type. On delete, the filter sees OptionalObj, which may be the zero T.
type TypedFilteringResourceEventHandler[T Object] struct {
	FilterFunc func(obj T) bool
	Handler    TypedResourceEventHandler[T]
}

// OnAdd forwards obj if it passes the filter.
func (r TypedFilteringResourceEventHandler[T]) OnAdd(obj T, isInInitialList bool) {
	if r.FilterFunc(obj) {
		r.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate forwards an update, an add or a delete depending on which of the
// two states pass the filter.
func (r TypedFilteringResourceEventHandler[T]) OnUpdate(oldObj, newObj T) {
	newPasses, oldPasses := r.FilterFunc(newObj), r.FilterFunc(oldObj)
	switch {
	case newPasses && oldPasses:
		r.Handler.OnUpdate(oldObj, newObj)
	case newPasses:
		r.Handler.OnAdd(newObj, false)
	case oldPasses:
		r.Handler.OnDelete(DeletedObject[T]{OptionalObj: oldObj})
	}
}

// OnDelete forwards obj if its OptionalObj passes the filter.
func (r TypedFilteringResourceEventHandler[T]) OnDelete(obj DeletedObject[T]) {
	if r.FilterFunc(obj.OptionalObj) {
		r.Handler.OnDelete(obj)
	}
}

// typedHandler adapts a TypedResourceEventHandler to ResourceEventHandler.
// An object of another type is a programming error and panics, as in
// client-go.
type typedHandler[T Object] struct {
	handler TypedResourceEventHandler[T]
}

func (h typedHandler[T]) OnAdd(obj any, isInInitialList bool) {
	h.handler.OnAdd(obj.(T), isInInitialList)
}

func (h typedHandler[T]) OnUpdate(oldObj, newObj any) {
	h.handler.OnUpdate(oldObj.(T), newObj.(T))
}

func (h typedHandler[T]) OnDelete(obj any) {
	tomb, ok := AsDeletedFinalStateUnknown(obj)
	if !ok {
		h.handler.OnDelete(DeletedObject[T]{OptionalObj: obj.(T)})
		return
	}
	d := DeletedObject[T]{FinalStateUnknown: &tomb}
	if tomb.Obj != nil {
		d.OptionalObj = tomb.Obj.(T)
	}
	h.handler.OnDelete(d)
}
