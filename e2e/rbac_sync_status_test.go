package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/informer"
)

// initialBackoff is the reflector's first wait after a failed list
// (client-go's, which fanout keeps: 800ms, with up to 100% jitter).
const initialBackoff = 800 * time.Millisecond

// TestRBACForbiddenSyncStatusE2E runs an informer as a user that may not
// list ConfigMaps. Within one backoff period, before the reflector lists
// again, SyncStatus must report the 403 with one failed attempt and the
// time of the next, and WaitForCacheSyncWithContext, given until then,
// must return a *CacheSyncError that names the forbidden list (errors.As,
// apierrors.IsForbidden) and the attempt count.
func TestRBACForbiddenSyncStatusE2E(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	admin := c.clientset(t, "kubeconfig")
	limited := c.clientset(t, "kubeconfig-limited")
	ns := "forbidden-" + runID(t)
	createNamespace(ctx, t, admin, ns)

	lw := informer.NewFilteredListWatchFromClient(limited.CoreV1().RESTClient(), "configmaps", ns, func(*metav1.ListOptions) {})
	inf := informer.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, informer.SharedIndexInformerOptions{}).(informer.FanoutInformer)
	if st := inf.SyncStatus(); st.State != informer.SyncNotStarted {
		t.Errorf("before Run: state %s, want %s", st.State, informer.SyncNotStarted)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); inf.RunWithContext(runCtx) }()
	defer func() { stop(); <-done }()

	// SyncStatus: the first failure is reported before the second list.
	var st informer.SyncStatus
	eventually(t, 5*time.Second, "SyncStatus reports the failed list", func() string {
		if st = inf.SyncStatus(); st.LastError == nil {
			return "state " + string(st.State) + ", no error yet"
		}
		return ""
	})
	reported := time.Since(start)
	t.Logf("SyncStatus %v after Run: %s", reported.Round(time.Millisecond), st)
	if !apierrors.IsForbidden(st.LastError) {
		t.Fatalf("LastError: want Forbidden, got %v", st.LastError)
	}
	if st.State != informer.SyncListFailing || st.Attempts != 1 {
		t.Errorf("first report: state %s after %d attempts, want %s after 1", st.State, st.Attempts, informer.SyncListFailing)
	}
	if wait := st.NextRetry.Sub(st.LastErrorTime); wait < initialBackoff || wait > 2*initialBackoff+100*time.Millisecond {
		t.Errorf("next retry %v after the failure, want the initial backoff, %v to %v", wait, initialBackoff, 2*initialBackoff)
	}
	if !strings.Contains(st.String(), "forbidden") || !strings.Contains(st.String(), "1 failed attempts") {
		t.Errorf("status %q: want it to name the forbidden error and the attempt", st)
	}

	// WaitForCacheSyncWithContext, bounded by the end of that backoff
	// period, returns the reason rather than a bare false.
	waitCtx, cancel := context.WithDeadline(ctx, st.NextRetry)
	defer cancel()
	err := informer.WaitForCacheSyncWithContext(waitCtx, inf.HasSynced)
	elapsed := time.Since(start)
	t.Logf("WaitForCacheSyncWithContext returned %v after Run: %v", elapsed.Round(time.Millisecond), err)
	var syncErr *informer.CacheSyncError
	if !errors.As(err, &syncErr) {
		t.Fatalf("want a *CacheSyncError, got %T %v", err, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !apierrors.IsForbidden(err) {
		t.Errorf("error %v: want it to wrap context.DeadlineExceeded and the Forbidden list error", err)
	}
	var ours *informer.SyncStatus
	for i := range syncErr.Statuses {
		if syncErr.Statuses[i].Name == st.Name {
			ours = &syncErr.Statuses[i]
		}
	}
	if ours == nil {
		t.Fatalf("error %v: no status of informer %q", err, st.Name)
	}
	// At the deadline the second list may have started: one or two
	// attempts, never more within one backoff period.
	if !apierrors.IsForbidden(ours.LastError) || ours.Attempts < 1 || ours.Attempts > 2 {
		t.Errorf("status in the error: %s; want the Forbidden error after 1 or 2 attempts", ours)
	}
	if !strings.Contains(err.Error(), "forbidden") || !strings.Contains(err.Error(), "failed attempts") {
		t.Errorf("error text %q: want it to name the forbidden error and the attempts", err)
	}
	if elapsed > 5*time.Second {
		t.Errorf("the 403 took %v to report, want at most 5s", elapsed)
	}
}
