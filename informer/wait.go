package informer

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

// InformerSynced reports whether an informer (or a registration) has synced.
type InformerSynced func() bool

// syncPollPeriod is how often WaitForCacheSync checks, as in client-go.
const syncPollPeriod = 100 * time.Millisecond

// WaitForCacheSync checks every InformerSynced at once and then every 100 ms
// until all report true (it returns true) or stopCh is closed (false).
func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	allSynced := func(context.Context) (bool, error) {
		for _, synced := range cacheSyncs {
			if !synced() {
				return false, nil
			}
		}
		return true, nil
	}
	ctx := wait.ContextForChannel(stopCh)
	return wait.PollUntilContextCancel(ctx, syncPollPeriod, true, allSynced) == nil
}

// WaitForNamedCacheSync is WaitForCacheSync that logs, under the name of the
// waiting controller, when it starts waiting and how it ended.
func WaitForNamedCacheSync(controllerName string, stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	logger := klog.Background()
	logger.Info("Waiting for caches to sync", "controller", controllerName)
	if !WaitForCacheSync(stopCh, cacheSyncs...) {
		utilruntime.HandleErrorWithContext(context.Background(), nil, "Unable to sync caches", "controller", controllerName)
		return false
	}
	logger.Info("Caches are synced", "controller", controllerName)
	return true
}

// WaitForNamedCacheSyncWithContext is WaitForNamedCacheSync with the logger
// and the stop signal taken from ctx.
func WaitForNamedCacheSyncWithContext(ctx context.Context, cacheSyncs ...InformerSynced) bool {
	logger := klog.FromContext(ctx)
	logger.Info("Waiting for caches to sync")
	if !WaitForCacheSync(ctx.Done(), cacheSyncs...) {
		utilruntime.HandleErrorWithContext(ctx, nil, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

// WaitFor waits, without polling, until every checker is done (true) or ctx
// is done (false). When what is not empty it logs the start, each checker
// that finishes, and the checkers still pending on timeout.
//
// It starts one goroutine per checker; each returns before WaitFor does.
func WaitFor(ctx context.Context, what string, checkers ...DoneChecker) bool {
	logger := klog.FromContext(ctx)
	if what != "" {
		// Every line names WaitFor's caller as its source, as client-go's
		// do (its TestWaitFor checks the file:line).
		helper, l := logger.WithCallStackHelper()
		helper()
		logger = l
		logger.Info("Waiting", "for", what)
	}
	type result struct {
		checker DoneChecker
		done    bool
	}
	results := make(chan result, len(checkers))
	var wg sync.WaitGroup
	for _, c := range checkers {
		wg.Go(func() {
			select {
			case <-c.Done():
				results <- result{c, true}
			case <-ctx.Done():
				// Both may be ready; prefer "done" if it is.
				results <- result{c, IsDone(c)}
			}
		})
	}
	var pending []string
	for range checkers {
		r := <-results
		switch {
		case !r.done:
			pending = append(pending, r.checker.Name())
		case what != "":
			logger.Info("Done waiting", "for", what, "instance", r.checker.Name())
		}
	}
	wg.Wait()
	if len(pending) > 0 && what != "" {
		slices.Sort(pending)
		logger.Info("Timed out waiting", "for", what, "cause", context.Cause(ctx), "instances", pending)
	}
	return len(pending) == 0
}

// IsDone reports, without blocking, whether checker is done.
func IsDone(checker DoneChecker) bool {
	select {
	case <-checker.Done():
		return true
	default:
		return false
	}
}

// SyncResult summarises waiting for the informers of a factory.
type SyncResult struct {
	// Err is nil when every informer synced, otherwise why waiting stopped.
	Err error
	// Synced tells, per informer type, whether it synced.
	Synced map[reflect.Type]bool
}

// AsError returns nil when every informer synced, otherwise an error that
// names the unsynced informer types and wraps Err.
func (r SyncResult) AsError() error {
	if r.Err == nil {
		return nil
	}
	var unsynced []string
	for t, ok := range r.Synced {
		if !ok {
			unsynced = append(unsynced, t.String())
		}
	}
	slices.Sort(unsynced)
	return fmt.Errorf("failed to sync all caches: %s: %w", strings.Join(unsynced, ", "), r.Err)
}
