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
//
// While it waits it logs why, at most once every 10 s and first after 1 s:
// the SyncStatus of every running fanout informer of the process that has
// not synced or has a registration that has not (an InformerSynced is a
// plain func and does not say whose it is, so the line may name an
// informer this wait does not cover).
func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	return waitForCacheSync(wait.ContextForChannel(stopCh), klog.Background(), cacheSyncs) == nil
}

// WaitForNamedCacheSync is WaitForCacheSync that logs, under the name of the
// waiting controller, when it starts waiting, why it still waits and how it
// ended.
func WaitForNamedCacheSync(controllerName string, stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	logger := klog.Background().WithValues("controller", controllerName)
	logger.Info("Waiting for caches to sync")
	if err := waitForCacheSync(wait.ContextForChannel(stopCh), logger, cacheSyncs); err != nil {
		utilruntime.HandleErrorWithContext(context.Background(), err, "Unable to sync caches", "controller", controllerName)
		return false
	}
	logger.Info("Caches are synced")
	return true
}

// WaitForNamedCacheSyncWithContext is WaitForNamedCacheSync with the logger
// and the stop signal taken from ctx.
func WaitForNamedCacheSyncWithContext(ctx context.Context, cacheSyncs ...InformerSynced) bool {
	logger := klog.FromContext(ctx)
	logger.Info("Waiting for caches to sync")
	if err := waitForCacheSync(ctx, logger, cacheSyncs); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

// WaitForCacheSyncWithContext is WaitForCacheSync until ctx is done, with
// the logger taken from ctx. It returns nil once every InformerSynced
// reports true, and otherwise a *CacheSyncError that says why the caches
// have not synced: the context's cause and the SyncStatus of every running
// fanout informer that has not synced (errors.As finds a list refused by
// the server, such as apierrors.IsForbidden for missing RBAC permission).
func WaitForCacheSyncWithContext(ctx context.Context, cacheSyncs ...InformerSynced) error {
	return waitForCacheSync(ctx, klog.FromContext(ctx), cacheSyncs)
}

// The waits log why they still wait first after syncLogFirst and then at
// most once every syncLogInterval.
const (
	syncLogFirst    = time.Second
	syncLogInterval = 10 * time.Second
)

// waitForCacheSync polls cacheSyncs every syncPollPeriod until all are
// synced (nil) or ctx is done (a *CacheSyncError), logging the unsynced
// informers' statuses to logger while it waits.
func waitForCacheSync(ctx context.Context, logger klog.Logger, cacheSyncs []InformerSynced) error {
	start := time.Now()
	nextLog := start.Add(syncLogFirst)
	allSynced := func(context.Context) (bool, error) {
		for _, synced := range cacheSyncs {
			if !synced() {
				if now := time.Now(); !now.Before(nextLog) {
					nextLog = now.Add(syncLogInterval)
					logSyncStatuses(logger, now.Sub(start))
				}
				return false, nil
			}
		}
		return true, nil
	}
	if err := wait.PollUntilContextCancel(ctx, syncPollPeriod, true, allSynced); err != nil {
		return &CacheSyncError{Cause: context.Cause(ctx), Statuses: unsyncedStatuses()}
	}
	return nil
}

// logSyncStatuses logs, in one line, why the running informers have not
// synced after waiting for waited.
func logSyncStatuses(logger klog.Logger, waited time.Duration) {
	statuses := unsyncedStatuses()
	reasons := make([]string, len(statuses))
	for i, st := range statuses {
		reasons[i] = st.String()
	}
	logger.Info("Still waiting for caches to sync", "waited", roundAge(waited), "notSynced", reasons)
}

// CacheSyncError is returned by WaitForCacheSyncWithContext when its
// context ends before the caches have synced.
type CacheSyncError struct {
	// Cause is the context's cause (context.DeadlineExceeded after a
	// timeout).
	Cause error
	// Statuses are the SyncStatus of every running fanout informer of the
	// process that had not synced, or had a registration that had not.
	Statuses []SyncStatus
}

func (e *CacheSyncError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "caches did not sync: %v", e.Cause)
	for _, st := range e.Statuses {
		b.WriteString("; ")
		b.WriteString(st.String())
	}
	return b.String()
}

// Unwrap returns the cause and the last list error of every status, so
// errors.Is(err, context.DeadlineExceeded) and apierrors.IsForbidden work.
func (e *CacheSyncError) Unwrap() []error {
	errs := []error{e.Cause}
	for _, st := range e.Statuses {
		if st.LastError != nil {
			errs = append(errs, st.LastError)
		}
	}
	return errs
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
