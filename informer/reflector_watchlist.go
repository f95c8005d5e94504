package informer

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"k8s.io/utils/trace"
)

// bookmarkWarnInterval is how often a watch-list stream that has not yet
// delivered its end bookmark is reported.
const bookmarkWarnInterval = 10 * time.Second

// watchList streams the initial state over a watch with
// SendInitialEvents: it collects the synthetic Added events in a temporary
// store until the bookmark annotated k8s.io/initial-events-end, then
// replaces the reflector's store with them at the bookmark's resource
// version and returns the still-open watch for watch to continue with.
//
// It re-opens the stream after a retriable error (with a backoff), after
// an expired or too-new RV (from RV ""), and after a stream that closed
// before its bookmark. It returns (nil, nil) when ctx is done and an error
// for anything else, in which case the caller falls back to a list.
func (r *Reflector) watchList(ctx context.Context) (watch.Interface, error) {
	logger := klog.FromContext(ctx)
	retriable := func(err error) bool {
		if isWatchErrorRetriable(err) {
			logger.V(2).Info("watch-list failed - backing off", "reflector", r.name, "type", r.typeDescription, "err", err)
			d := r.delay()
			now := r.clock.Now()
			r.fill.failed(err, now, now.Add(d))
			if !r.sleep(ctx, d) {
				return false
			}
			r.fill.begin(r.clock.Now(), true)
			return true
		}
		if isExpiredError(err) || isTooLargeResourceVersionError(err) {
			// Start over from the newest state, read consistently.
			r.setLastSyncResourceVersionUnavailable(true)
			return true
		}
		return false
	}

	var storeOpts []StoreOption
	if ts, ok := r.store.(TransformingStore); ok && ts.Transformer() != nil {
		storeOpts = append(storeOpts, WithTransformer(ts.Transformer()))
	}
	tr := trace.New("Reflector WatchList", trace.Field{Key: "name", Value: r.name})
	defer tr.LogIfLong(10 * time.Second)

	var (
		w               watch.Interface
		temp            Store
		resourceVersion string
	)
	for {
		if ctx.Err() != nil {
			return nil, nil
		}
		resourceVersion = ""
		temp = NewStore(DeletionHandlingMetaNamespaceKeyFunc, storeOpts...)
		timeout := r.watchTimeoutSeconds()
		options := metav1.ListOptions{
			ResourceVersion:      r.rewatchResourceVersion(),
			AllowWatchBookmarks:  true,
			SendInitialEvents:    ptr.To(true),
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			TimeoutSeconds:       &timeout,
		}
		start := r.clock.Now()
		var err error
		w, err = r.listerWatcher.WatchWithContext(ctx, options)
		r.countWatch(err)
		if err != nil {
			if retriable(err) {
				continue
			}
			if ctx.Err() != nil {
				return nil, nil
			}
			return nil, err
		}
		ended, err := r.handleWatch(ctx, start, w, temp, true, func(rv string, pastInitialEvents bool) {
			if !pastInitialEvents {
				r.fill.items.Add(1)
			}
			if pastInitialEvents {
				resourceVersion = rv
			}
		}, nil)
		if err != nil {
			if errors.Is(err, errStopRequested) {
				return nil, nil
			}
			if retriable(err) {
				continue
			}
			if ctx.Err() != nil {
				return nil, nil
			}
			return nil, err
		}
		if ended {
			break
		}
	}
	tr.Step("Objects streamed", trace.Field{Key: "count", Value: len(temp.List())})
	r.setLastSyncResourceVersionUnavailable(false)
	// The temporary store keeps the stream independent of what the
	// reflector's store does with Add; the real store sees one Replace.
	if err := r.replaceStore(temp.List(), resourceVersion); err != nil {
		w.Stop()
		return nil, fmt.Errorf("unable to sync watch-list result: %w", err)
	}
	tr.Step("SyncWith done")
	r.setLastSyncResourceVersion(resourceVersion)
	r.fill.done()
	return w, nil
}

// bookmarkWarner logs while a watch-list stream has gone quiet for
// bookmarkWarnInterval without its end bookmark. Its zero value (used for
// plain watches) does nothing. It is used by one goroutine.
type bookmarkWarner struct {
	ticker    clock.Ticker
	clock     clock.Clock
	logger    klog.Logger
	name      string
	start     time.Time
	lastEvent time.Time
}

func (r *Reflector) newBookmarkWarner(ctx context.Context, start time.Time, active bool) *bookmarkWarner {
	if !active {
		return &bookmarkWarner{}
	}
	logger := klog.FromContext(ctx)
	tc, ok := r.clock.(clock.WithTicker)
	if !ok {
		logger.Info("Warning: clock does not support WithTicker interface but exitOnInitialEventsEndBookmark was requested")
		return &bookmarkWarner{}
	}
	return &bookmarkWarner{
		ticker: tc.NewTicker(bookmarkWarnInterval),
		clock:  r.clock,
		logger: logger,
		name:   r.name,
		start:  start,
	}
}

// c is the ticker's channel, or nil (never ready) when inactive.
func (b *bookmarkWarner) c() <-chan time.Time {
	if b.ticker == nil {
		return nil
	}
	return b.ticker.C()
}

func (b *bookmarkWarner) stop() {
	if b.ticker != nil {
		b.ticker.Stop()
	}
}

// observed records that an event arrived now. An inactive warner does not
// read the clock: it never looks at the time.
func (b *bookmarkWarner) observed(clk clock.PassiveClock) {
	if b.ticker != nil {
		b.lastEvent = clk.Now()
	}
}

func (b *bookmarkWarner) warnIfLate() {
	if b.ticker == nil {
		return
	}
	var err error
	switch {
	case b.lastEvent.IsZero():
		err = fmt.Errorf("%s: awaiting required bookmark event for initial events stream, no events received for %v", b.name, b.clock.Since(b.start))
	case b.clock.Since(b.lastEvent) >= bookmarkWarnInterval:
		err = fmt.Errorf("%s: hasn't received required bookmark event marking the end of initial events stream, received last event %v ago", b.name, b.clock.Since(b.lastEvent))
	}
	if err != nil {
		b.logger.Info("Warning: event bookmark expired", "err", err)
	}
}
