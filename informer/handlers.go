package informer

import "github.com/kfanout/fanout/deltafifo"

// ResourceEventHandler receives an informer's notifications. Handlers are
// called one at a time per registration, in the order the informer saw the
// changes, and must not modify the objects they are given: they are the
// objects in the cache.
//
//   - OnAdd is called for a new object; isInInitialList is true while the
//     informer delivers the objects of its first list.
//   - OnUpdate is called when an object changed, and on resyncs and relists
//     even when nothing changed. oldObj is the last state the informer knew,
//     so several changes may appear as one.
//   - OnDelete receives the final state, or this package's
//     DeletedFinalStateUnknown (not client-go's) when the deletion was only
//     noticed by a relist.
type ResourceEventHandler interface {
	OnAdd(obj any, isInInitialList bool)
	OnUpdate(oldObj, newObj any)
	OnDelete(obj any)
}

// ResourceEventHandlerFuncs is a ResourceEventHandler made of optional
// functions; a nil function ignores its notification.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj any)
	UpdateFunc func(oldObj, newObj any)
	DeleteFunc func(obj any)
}

// OnAdd calls AddFunc, if set.
func (r ResourceEventHandlerFuncs) OnAdd(obj any, _ bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (r ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj any) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set, with client-go's tombstone replaced
// by fanout's (see AsDeletedFinalStateUnknown).
func (r ResourceEventHandlerFuncs) OnDelete(obj any) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(deltafifo.NormalizeDeleted(obj))
	}
}

// ResourceEventHandlerDetailedFuncs is ResourceEventHandlerFuncs whose
// AddFunc also receives isInInitialList.
type ResourceEventHandlerDetailedFuncs struct {
	AddFunc    func(obj any, isInInitialList bool)
	UpdateFunc func(oldObj, newObj any)
	DeleteFunc func(obj any)
}

// OnAdd calls AddFunc, if set.
func (r ResourceEventHandlerDetailedFuncs) OnAdd(obj any, isInInitialList bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (r ResourceEventHandlerDetailedFuncs) OnUpdate(oldObj, newObj any) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set, with client-go's tombstone replaced
// by fanout's (see AsDeletedFinalStateUnknown).
func (r ResourceEventHandlerDetailedFuncs) OnDelete(obj any) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(deltafifo.NormalizeDeleted(obj))
	}
}

// FilteringResourceEventHandler passes to Handler only the notifications
// whose objects pass FilterFunc. An update across the filter's edge becomes
// an add (the object starts passing) or a delete of the old object (it stops
// passing). FilterFunc must not modify objects.
type FilteringResourceEventHandler struct {
	FilterFunc func(obj any) bool
	Handler    ResourceEventHandler
}

// OnAdd forwards obj if it passes the filter.
func (r FilteringResourceEventHandler) OnAdd(obj any, isInInitialList bool) {
	if r.FilterFunc(obj) {
		r.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate forwards an update, an add or a delete depending on which of the
// two states pass the filter.
func (r FilteringResourceEventHandler) OnUpdate(oldObj, newObj any) {
	newPasses, oldPasses := r.FilterFunc(newObj), r.FilterFunc(oldObj)
	switch {
	case newPasses && oldPasses:
		r.Handler.OnUpdate(oldObj, newObj)
	case newPasses:
		r.Handler.OnAdd(newObj, false)
	case oldPasses:
		r.Handler.OnDelete(oldObj)
	}
}

// OnDelete forwards obj if it passes the filter; client-go's tombstone is
// replaced by fanout's first (see AsDeletedFinalStateUnknown).
func (r FilteringResourceEventHandler) OnDelete(obj any) {
	obj = deltafifo.NormalizeDeleted(obj)
	if r.FilterFunc(obj) {
		r.Handler.OnDelete(obj)
	}
}
