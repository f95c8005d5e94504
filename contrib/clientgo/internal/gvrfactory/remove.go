package gvrfactory

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kfanout/fanout/contrib/clientgo"
)

// RemoveInformer stops the informer of gvr and drops it from the factory:
// its reflector and watch stop, its handlers' goroutines end, its metrics
// series are released, and the next ForResource(gvr) makes a fresh
// informer (which the next Start starts). Code still holding the removed
// informer sees a stopped informer: Run logs and returns, AddEventHandler
// fails. It waits until the informer has stopped, or returns the context's
// error once ctx ends (the informer is dropped and stops anyway). For a
// resource the factory holds no informer of it returns an error wrapping
// clientgo.ErrInformerNotHeld and changes nothing.
func (f *Factory) RemoveInformer(ctx context.Context, gvr schema.GroupVersionResource) error {
	f.mu.Lock()
	f.pruneLocked()
	gi, ok := f.informers[gvr]
	if !ok {
		f.mu.Unlock()
		return fmt.Errorf("%w: %v", clientgo.ErrInformerNotHeld, gvr)
	}
	delete(f.informers, gvr)
	delete(f.started, gvr)
	f.mu.Unlock()
	fi, ok := clientgo.FanoutInformer(gi.Informer())
	if !ok {
		return fmt.Errorf("gvrfactory: the informer of %v is %T, not fanout's", gvr, gi.Informer())
	}
	return fi.Shutdown(ctx)
}

// pruneLocked drops the informers stopped by their own Shutdown: stopped
// although the factory never started them or their start context has not
// ended. An informer stopped because its start context ended stays, as
// in client-go.
func (f *Factory) pruneLocked() {
	for gvr, gi := range f.informers {
		if !gi.Informer().IsStopped() {
			continue
		}
		if ctx := f.started[gvr]; ctx == nil || ctx.Err() == nil {
			delete(f.informers, gvr)
			delete(f.started, gvr)
		}
	}
}
