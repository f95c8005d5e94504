package informer

import (
	"context"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// Run calls ListAndWatch until stopCh is closed, backing off between
// attempts. See RunWithContext.
//
// Contextual logging: use RunWithContext where a context is at hand.
func (r *Reflector) Run(stopCh <-chan struct{}) {
	r.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext calls ListAndWatchWithContext until ctx is done. It runs
// the first attempt at once, and after each attempt, failed or not, waits
// for the next backoff delay on the reflector's clock. An error is passed
// to the watch error handler (DefaultWatchErrorHandler unless the
// controller set another). It returns once ctx is done and the running
// attempt has returned, with every goroutine it started: an attempt returns as soon as the
// ListerWatcher call in progress does, which is prompt for a ListerWatcher
// that honours its context (a legacy ListFunc, which gets none, holds the
// return up until its list ends).
func (r *Reflector) RunWithContext(ctx context.Context) {
	logger := klog.FromContext(ctx)
	logger.V(3).Info("Starting reflector", "type", r.typeDescription, "resyncPeriod", r.resyncPeriod, "reflector", r.name)
	defer logger.V(3).Info("Stopping reflector", "type", r.typeDescription, "resyncPeriod", r.resyncPeriod, "reflector", r.name)
	for {
		r.runOnce(ctx)
		if r.listSwitch().relistNow() && ctx.Err() == nil {
			continue // SetListOptions ended the watch: list at once
		}
		// The delay starts after the attempt (a sliding period), so a
		// long watch is followed by the same pause as a failed list.
		d := r.delay()
		r.fill.retryAt(r.clock.Now().Add(d))
		t := r.clock.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		// A short timer and a done context can be ready together; never
		// start an attempt after stop.
		if ctx.Err() != nil {
			return
		}
	}
}

func (r *Reflector) runOnce(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	if err := r.ListAndWatchWithContext(ctx); err != nil {
		r.fill.failed(err, r.clock.Now(), time.Time{})
		r.watchErrorHandler(ctx, r, err)
	}
}

// ListAndWatch lists, then watches from the listed resource version, until
// stopCh is closed or the watch must be restarted with a list. See
// ListAndWatchWithContext.
//
// Contextual logging: use ListAndWatchWithContext where a context is at
// hand.
func (r *Reflector) ListAndWatch(stopCh <-chan struct{}) error {
	return r.ListAndWatchWithContext(wait.ContextForChannel(stopCh))
}

// ListAndWatchWithContext fills the store (by a watch-list stream when
// enabled, falling back to a list) and then watches, re-watching without a
// list after a normal close or a retriable error. It returns an error only
// if it could not fill the store; it returns nil when ctx is done or when
// the watch ended in a way that needs a fresh list (for example a 410).
func (r *Reflector) ListAndWatchWithContext(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	logger.V(3).Info("Listing and watching", "type", r.typeDescription, "reflector", r.name)
	r.listSwitch().pin()
	var w watch.Interface
	defer func() {
		if w != nil {
			w.Stop()
		}
	}()
	useWatchList := r.UseWatchList != nil && *r.UseWatchList
	useList := !useWatchList
	if useWatchList {
		r.fill.begin(r.clock.Now(), true)
		var err error
		w, err = r.watchList(ctx)
		if w == nil && err == nil {
			return nil // stopped
		}
		if err != nil {
			logger.V(4).Info("Data couldn't be fetched in watchlist mode. Falling back to regular list. This is expected if watchlist is not supported or disabled in kube-apiserver.", "err", err)
			w, useList = nil, true
		}
	}
	if useList {
		r.fill.begin(r.clock.Now(), false)
		if err := r.list(ctx); err != nil {
			return err
		}
	}
	logger.V(2).Info("Caches populated", "type", r.typeDescription, "reflector", r.name)
	// watchWithResync owns w from here and always stops it.
	ww := w
	w = nil
	return r.watchWithResync(ctx, ww)
}
