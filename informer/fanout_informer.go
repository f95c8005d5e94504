package informer

import "context"

// FanoutInformer is a SharedIndexInformer with fanout's additions to
// client-go's method set. SharedInformer, SharedIndexInformer and
// TypedSharedIndexInformer keep exactly client-go's method sets, so that
// any implementation of client-go's interfaces fits them; the additions
// are reached with a type assertion:
//
//	fi, ok := inf.(informer.FanoutInformer)
//
// Every informer this package builds implements it, and so does a typed
// informer (NewTypedSharedIndexInformer) over one. From a client-go
// interface value (contrib/clientgo), clientgo.FanoutInformer returns it.
type FanoutInformer interface {
	SharedIndexInformer
	// SyncStatus reports what the informer, and each of its handler
	// registrations, waits for before it has synced: not started, a list
	// in progress or failing (with its last error), the list being
	// written to the cache, a handler's initial notifications.
	SyncStatus() SyncStatus
	// WaitForResourceVersion waits until the cache has applied
	// resourceVersion or a newer one (read-your-writes), or ctx ends.
	WaitForResourceVersion(ctx context.Context, resourceVersion string) error
	// SetListOptions replaces the informer's ListScope (namespaces and
	// the tweak of its list and watch options) while it runs: objects
	// leaving the selection are deleted, objects entering it added.
	SetListOptions(ctx context.Context, scope ListScope) error
}

var _ FanoutInformer = (*sharedIndexInformer)(nil)

// typedFanoutInformer is the typed informer over a FanoutInformer: it has
// fanout's additions too.
type typedFanoutInformer[T Object] struct {
	typedSharedIndexInformer[T]
	fanout FanoutInformer
}

// SyncStatus is the wrapped informer's.
func (s typedFanoutInformer[T]) SyncStatus() SyncStatus { return s.fanout.SyncStatus() }

// WaitForResourceVersion is the wrapped informer's.
func (s typedFanoutInformer[T]) WaitForResourceVersion(ctx context.Context, resourceVersion string) error {
	return s.fanout.WaitForResourceVersion(ctx, resourceVersion)
}

// SetListOptions is the wrapped informer's.
func (s typedFanoutInformer[T]) SetListOptions(ctx context.Context, scope ListScope) error {
	return s.fanout.SetListOptions(ctx, scope)
}
