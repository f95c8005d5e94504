package informer

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// watchWithResync runs watch while a second goroutine resyncs the store
// every resync period. It waits for that goroutine before returning.
func (r *Reflector) watchWithResync(ctx context.Context, w watch.Interface) error {
	// A change of list options (SetListOptions) ends the watch for a list.
	ctx, switched := r.listSwitch().watchContext(ctx)
	resyncErr := make(chan error, 1)
	resyncCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { r.resyncLoop(resyncCtx, resyncErr) })
	return switched(r.watch(ctx, w, resyncErr))
}

// resyncLoop calls the store's Resync every resync period while
// ShouldResync is nil or returns true. A Resync error is sent on errc,
// which ends the watch, and ends the loop.
func (r *Reflector) resyncLoop(ctx context.Context, errc chan<- error) {
	if r.resyncPeriod == 0 {
		return
	}
	logger := klog.FromContext(ctx)
	for {
		t := r.clock.NewTimer(r.resyncPeriod)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if r.ShouldResync == nil || r.ShouldResync() {
			logger.V(4).Info("Forcing resync", "reflector", r.name)
			if err := r.store.Resync(); err != nil {
				errc <- err
				return
			}
		}
	}
}

// watchTimeoutSeconds picks the server-side timeout of the next watch,
// at random in [min, max).
func (r *Reflector) watchTimeoutSeconds() int64 {
	minS, maxS := r.minWatchTimeout.Seconds(), r.maxWatchTimeout.Seconds()
	return int64(minS + rand.Float64()*(maxS-minS))
}

// errNilWatch is the error of a ListerWatcher whose Watch returned neither
// a watch nor an error.
var errNilWatch = errors.New("watch returned neither a watch nor an error")

// shortWatch is the age under which a watch that ends without error is
// taken as one that ended immediately and is retried after a backoff.
const shortWatch = time.Second

// watch applies the events of w (or of a new watch if w is nil) to the
// store, and starts a new watch each time one ends normally or with a
// retriable error. It returns nil when ctx is done or when the next step
// must be a list, and an error when a watch cannot be started for a reason
// other than an unreachable or overloaded server. It always stops the
// watch it holds.
func (r *Reflector) watch(ctx context.Context, w watch.Interface, resyncErr chan error) error {
	logger := klog.FromContext(ctx)
	retry := NewRetryWithDeadline(r.MaxInternalErrorRetryDuration, time.Minute, apierrors.IsInternalError, r.clock)
	// shortRun counts the watches in a row that ended normally within
	// shortWatch.
	shortRun := 0
	defer func() {
		if w != nil {
			w.Stop()
		}
	}()
	for {
		if ctx.Err() != nil {
			return nil
		}
		// Some proxies send headers only with the first event, so the
		// watch's age is measured from before the request.
		start := r.clock.Now()
		// A watch handed over by watch-list is past its initial events.
		propagateRVFromStart := true
		if w == nil {
			timeout := r.watchTimeoutSeconds()
			options := metav1.ListOptions{
				ResourceVersion:     r.LastSyncResourceVersion(),
				TimeoutSeconds:      &timeout,
				AllowWatchBookmarks: true,
			}
			// From RV "" or "0" the server first sends synthetic Added
			// events in no particular RV order; client-go v0.36 and later
			// hold the RV back until the first other event.
			if r.holdInitialRV && (options.ResourceVersion == "" || options.ResourceVersion == "0") {
				propagateRVFromStart = false
			}
			var err error
			w, err = r.listerWatcher.WatchWithContext(ctx, options)
			if err == nil && w == nil {
				err = errNilWatch
			}
			r.countWatch(err)
			if errors.Is(err, errNilWatch) {
				// A broken ListerWatcher: back off and watch again, as
				// after a refused connection.
				logger.Error(err, "Watch failed - backing off", "reflector", r.name, "type", r.typeDescription)
				w = nil
				if !r.sleep(ctx, r.delay()) {
					return nil
				}
				continue
			}
			if err != nil {
				if !isWatchErrorRetriable(err) {
					return err
				}
				logger.V(4).Info("Watch failed - backing off", "reflector", r.name, "type", r.typeDescription, "err", err)
				if !r.sleep(ctx, r.delay()) {
					return nil
				}
				continue
			}
		}
		_, err := r.handleWatch(ctx, start, w, r.store, false, func(rv string, pastInitialEvents bool) {
			if propagateRVFromStart || pastInitialEvents {
				r.setLastSyncResourceVersion(rv)
				if u, ok := r.store.(ResourceVersionUpdater); ok {
					u.UpdateResourceVersion(rv)
				}
			}
		}, resyncErr)
		w = nil // handleWatch stopped it
		retry.After(err)
		switch {
		case err == nil && r.clock.Since(start) < shortWatch && shortRun > 0:
			// A second watch in a row that ends normally this soon is not
			// a server timeout (at least minWatchTimeout) but a proxy or
			// server that closes every watch at once. Back off so that it
			// is not reopened in a hot loop. A single early close, and a
			// watch that ran longer, reconnect at once.
			shortRun++
			logger.V(2).Info("Watch ended immediately - backing off", "reflector", r.name, "type", r.typeDescription)
			if !r.sleep(ctx, r.delay()) {
				return nil
			}
			continue
		case err == nil:
			if r.clock.Since(start) < shortWatch {
				shortRun = 1
			} else {
				shortRun = 0
			}
			continue
		case errors.Is(err, errStopRequested):
			return nil
		case isExpiredError(err):
			// Relist at the last RV: a list at an RV is never older than
			// it, so the RV need not be marked unavailable.
			logger.V(4).Info("Watch closed", "reflector", r.name, "type", r.typeDescription, "err", err)
			return nil
		case apierrors.IsTooManyRequests(err):
			logger.V(2).Info("Watch returned 429 - backing off", "reflector", r.name, "type", r.typeDescription)
			if !r.sleep(ctx, r.delay()) {
				return nil
			}
			continue
		case apierrors.IsInternalError(err) && retry.ShouldRetry():
			logger.V(2).Info("Retrying watch after internal error", "reflector", r.name, "type", r.typeDescription, "err", err)
			continue
		default:
			logger.Info("Warning: watch ended with error", "reflector", r.name, "type", r.typeDescription, "err", err)
			return nil
		}
	}
}

// sleep waits d on the reflector's clock; it returns false if ctx is done
// first.
func (r *Reflector) sleep(ctx context.Context, d time.Duration) bool {
	t := r.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// handleWatch applies the events of w to store until w closes, ctx is
// done (errStopRequested), errc yields an error, or w delivers an error
// event. setRV is called after each event with its resource version and
// whether an event other than Added has been seen. When untilInitialEnd is
// set it returns as soon as the watch-list end bookmark has been applied
// and leaves w open; otherwise it always stops w. It reports whether that
// bookmark was seen.
//
// A watch that closes within a second without an event returns a
// *VeryShortWatchError.
func (r *Reflector) handleWatch(ctx context.Context, start time.Time, w watch.Interface, store ReflectorStore,
	untilInitialEnd bool, setRV func(rv string, pastInitialEvents bool), errc <-chan error) (bool, error) {
	initialEnd := false
	pastInitialEvents := false
	count := 0
	warn := r.newBookmarkWarner(ctx, start, untilInitialEnd)
	defer warn.stop()
	keepOpen := false
	defer func() {
		if !keepOpen {
			w.Stop()
		}
	}()
	events := w.ResultChan()
	for {
		event, ok, err, next := nextWatchEvent(ctx, events, errc, warn)
		switch next {
		case nextStop:
			return initialEnd, errStopRequested
		case nextError:
			return initialEnd, err
		case nextTick:
			warn.warnIfLate()
		default:
			if !ok {
				if r.clock.Since(start) < time.Second && count == 0 {
					return initialEnd, &VeryShortWatchError{Name: r.name}
				}
				klog.FromContext(ctx).V(4).Info("Watch close", "reflector", r.name, "type", r.typeDescription, "totalItems", count)
				return initialEnd, nil
			}
			if event.Type == watch.Error {
				return initialEnd, apierrors.FromObject(event.Object)
			}
			rv, ok := r.applyEvent(ctx, store, event)
			if !ok {
				continue
			}
			switch event.Type {
			case watch.Modified, watch.Deleted, watch.Bookmark:
				pastInitialEvents = true
			}
			if event.Type == watch.Bookmark && isInitialEventsEnd(event) {
				initialEnd = true
			}
			setRV(rv, pastInitialEvents)
			count++
			if untilInitialEnd && initialEnd {
				keepOpen = true
				klog.FromContext(ctx).V(4).Info("Exiting watch because received the bookmark that marks the end of initial events stream",
					"reflector", r.name, "totalItems", count, "duration", r.clock.Since(start))
				return true, nil
			}
			warn.observed(r.clock)
		}
	}
}

// The outcomes of nextWatchEvent.
const (
	nextEvent = iota // an event, or the closing of the watch
	nextStop         // ctx is done
	nextError        // errc yielded an error
	nextTick         // the bookmark warner's ticker fired
)

// nextWatchEvent waits for whichever comes first of ctx being done, an
// error on errc, the warner's tick and an event (ok is false if the watch
// closed). When the warner is inactive and neither ctx nor errc is ready,
// a ready event is taken without a select over every channel (which locks
// all of them): choosing among ready cases in this order is one of the
// choices a select could make, and ctx and errc are still looked at before
// every event, so a steady stream of events cannot hide them.
func nextWatchEvent(ctx context.Context, events <-chan watch.Event, errc <-chan error, warn *bookmarkWarner) (event watch.Event, ok bool, err error, next int) {
	if warn.ticker == nil {
		select {
		case <-ctx.Done():
			return event, false, nil, nextStop
		default:
		}
		select {
		case err = <-errc:
			return event, false, err, nextError
		default:
		}
		select {
		case event, ok = <-events:
			return event, ok, nil, nextEvent
		default:
		}
	}
	select {
	case <-ctx.Done():
		return event, false, nil, nextStop
	case err = <-errc:
		return event, false, err, nextError
	case <-warn.c():
		return event, false, nil, nextTick
	case event, ok = <-events:
		return event, ok, nil, nextEvent
	}
}

// applyEvent checks event against the expected type and applies it to
// store. It returns the event object's resource version, and false if the
// event was dropped. Store errors are reported and do not drop the event.
func (r *Reflector) applyEvent(ctx context.Context, store ReflectorStore, event watch.Event) (string, bool) {
	if r.expectedType != nil {
		if want, got := r.expectedType, reflect.TypeOf(event.Object); want != got {
			utilruntime.HandleErrorWithContext(ctx, nil, "Unexpected watch event object type", "reflector", r.name, "expectedType", want, "actualType", got)
			return "", false
		}
	}
	if r.expectedGVK != nil {
		if want, got := *r.expectedGVK, event.Object.GetObjectKind().GroupVersionKind(); want != got {
			utilruntime.HandleErrorWithContext(ctx, nil, "Unexpected watch event object gvk", "reflector", r.name, "expectedGVK", want, "actualGVK", got)
			return "", false
		}
	}
	if isTableObject(event.Object) {
		utilruntime.HandleErrorWithContext(ctx, nil, "Unsupported watch event object gvk", "reflector", r.name, "actualGVK", event.Object.GetObjectKind().GroupVersionKind())
		return "", false
	}
	accessor, err := meta.Accessor(event.Object)
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Unable to understand watch event", "reflector", r.name, "event", event)
		return "", false
	}
	switch event.Type {
	case watch.Added:
		if err := store.Add(event.Object); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Unable to add watch event object to store", "reflector", r.name, "object", event.Object)
		}
	case watch.Modified:
		if err := store.Update(event.Object); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Unable to update watch event object to store", "reflector", r.name, "object", event.Object)
		}
	case watch.Deleted:
		if err := store.Delete(event.Object); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Unable to delete watch event object from store", "reflector", r.name, "object", event.Object)
		}
	case watch.Bookmark:
		if bs, ok := store.(ReflectorBookmarkStore); ok {
			if err := bs.Bookmark(accessor.GetResourceVersion()); err != nil {
				utilruntime.HandleErrorWithContext(ctx, err, "Unable to send bookmark event to store", "reflector", r.name, "object", event.Object)
			}
		}
	default:
		utilruntime.HandleErrorWithContext(ctx, nil, "Unknown watch event", "reflector", r.name, "event", event)
	}
	return accessor.GetResourceVersion(), true
}

// isInitialEventsEnd reports the bookmark that ends a watch-list stream's
// initial events.
func isInitialEventsEnd(event watch.Event) bool {
	accessor, err := meta.Accessor(event.Object)
	return err == nil && accessor.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}
