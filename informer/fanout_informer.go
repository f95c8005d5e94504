package informer

import (
	"context"

	"github.com/kfanout/fanout/listener"
)

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
	// Shutdown stops the informer for good, whatever Run's context, and
	// waits until Run has returned or ctx ends: its reflector and watch,
	// its goroutines and its handlers' listeners end, and its metrics
	// series are released. A later Run logs and returns.
	Shutdown(ctx context.Context) error
}

var _ FanoutInformer = (*sharedIndexInformer)(nil)

// FanoutRegistration is a ResourceEventHandlerRegistration with fanout's
// additions; every registration a fanout informer returns implements it
// (reach it with a type assertion, as FanoutInformer).
type FanoutRegistration interface {
	ResourceEventHandlerRegistration
	// WaitForResourceVersion waits until the informer's cache has applied
	// resourceVersion (or a newer one) and this handler has been called
	// for every change applied up to then, or ctx ends. It is not
	// supported (errors.ErrUnsupported) with HandlerOptions.Workers > 1.
	WaitForResourceVersion(ctx context.Context, resourceVersion string) error
}

var _ FanoutRegistration = (*listener.Listener)(nil)

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

// Shutdown is the wrapped informer's.
func (s typedFanoutInformer[T]) Shutdown(ctx context.Context) error { return s.fanout.Shutdown(ctx) }
