package clientgo

import (
	"context"

	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// controller adapts fanout's Controller to client-go's. Its
// HasSyncedChecker (client-go v0.36+) is the informer's mirror, as fanout's
// informer controller checks the informer's sync.
type controller struct {
	checkerHost
	inner informer.Controller
}

var _ cache.Controller = controller{}

// RunWithContext runs the controller until ctx is done.
func (c controller) RunWithContext(ctx context.Context) { c.inner.RunWithContext(ctx) }

// Run runs the controller until stopCh is closed.
func (c controller) Run(stopCh <-chan struct{}) { c.inner.Run(stopCh) }

// HasSynced reports whether the initial list has been processed.
func (c controller) HasSynced() bool { return c.inner.HasSynced() }

// LastSyncResourceVersion is the resource version last seen.
func (c controller) LastSyncResourceVersion() string { return c.inner.LastSyncResourceVersion() }
