// Package gvrfactory holds what fanout's dynamic and metadata informer
// factories share: one informer per GroupVersionResource, made on first
// request and started, waited for and shut down together, and the
// list-and-watch plumbing from a client to a fanout informer.
package gvrfactory

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/internal/release"
	"github.com/kfanout/fanout/informer"
)

// Factory keeps one informer per resource. It is safe for concurrent use.
type Factory struct {
	// newInformer makes the informer of a resource; it is the factory's
	// own code, so it may run under mu.
	newInformer func(schema.GroupVersionResource) informers.GenericInformer

	mu        sync.Mutex // guards the fields below
	informers map[schema.GroupVersionResource]informers.GenericInformer
	// started holds the context each started informer runs on.
	started map[schema.GroupVersionResource]context.Context
	// shuttingDown is set by the first Shutdown; Start does nothing after.
	shuttingDown bool

	// wg counts the goroutines Start runs an informer on; each ends when
	// the context (or stop channel) it was started with is done.
	wg sync.WaitGroup
}

// New returns an empty factory whose informers newInformer makes. It
// panics with an error naming the supported range if the binary links a
// client-go release outside it.
func New(newInformer func(schema.GroupVersionResource) informers.GenericInformer) *Factory {
	if err := release.Check(); err != nil {
		panic(err)
	}
	return &Factory{
		newInformer: newInformer,
		informers:   map[schema.GroupVersionResource]informers.GenericInformer{},
		started:     map[schema.GroupVersionResource]context.Context{},
	}
}

// ForResource returns the informer of gvr, making it on the first call;
// later calls return the same informer, until it is removed
// (RemoveInformer, or the informer's own Shutdown): then a fresh one.
func (f *Factory) ForResource(gvr schema.GroupVersionResource) informers.GenericInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pruneLocked()
	if inf, ok := f.informers[gvr]; ok {
		return inf
	}
	inf := f.newInformer(gvr)
	f.informers[gvr] = inf
	return inf
}

// Start runs every informer not yet started until stopCh is closed. It
// does not wait; after Shutdown it does nothing.
func (f *Factory) Start(stopCh <-chan struct{}) {
	f.StartWithContext(wait.ContextForChannel(stopCh))
}

// StartWithContext runs every informer not yet started until ctx is done.
// It does not wait; after Shutdown it does nothing.
func (f *Factory) StartWithContext(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	f.pruneLocked()
	for gvr, inf := range f.informers {
		if f.started[gvr] != nil {
			continue
		}
		f.started[gvr] = ctx
		sii := inf.Informer()
		f.wg.Go(func() { sii.RunWithContext(ctx) })
	}
}

// WaitForCacheSync waits until every started informer has synced or
// stopCh is closed, and reports per resource whether it synced.
func (f *Factory) WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool {
	f.mu.Lock()
	f.pruneLocked()
	started := make(map[schema.GroupVersionResource]cache.SharedIndexInformer, len(f.started))
	for gvr, inf := range f.informers {
		if f.started[gvr] != nil {
			started[gvr] = inf.Informer()
		}
	}
	f.mu.Unlock()

	synced := make(map[schema.GroupVersionResource]bool, len(started))
	for gvr, inf := range started {
		synced[gvr] = informer.WaitForCacheSync(stopCh, inf.HasSynced)
	}
	return synced
}

// Shutdown stops Start from starting informers and waits until every
// informer it started has returned, which happens once the contexts or
// stop channels they were started with are done. It may be called more
// than once, also concurrently; every call waits.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	f.shuttingDown = true
	f.mu.Unlock()
	f.wg.Wait()
}
