package e2e

import (
	"context"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestListErrorsBackOffUntilGranted runs an informer as a user that may not
// list ConfigMaps: every List is forbidden, and the retries back off as
// client-go's do (800ms doubling, up to 100% jitter). Once a RoleBinding
// grants list and watch, the informer syncs to the server's state.
func TestListErrorsBackOffUntilGranted(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	admin := c.clientset(t, "kubeconfig")
	limited := c.clientset(t, "kubeconfig-limited")
	id := runID(t)
	ns, set := "rbac-"+id, "rbac-"+id
	selector := setLabel + "=" + set
	createNamespace(ctx, t, admin, ns)
	faultObjects(ctx, t, admin, ns, set, 0, 5)

	s := newFanoutSubject(t, "fanout", limited, ns, selector, false)
	rec := newRecorder()
	handlerSynced, err := s.addHandler(rec)
	if err != nil {
		t.Fatal(err)
	}
	startAll(t, s)

	// Four forbidden lists: three waits of at least 0.8s, 1.6s and 3.2s.
	var at []time.Time
	deadline := time.After(60 * time.Second)
	for len(at) < 4 {
		select {
		case err := <-s.watchErrors:
			if !apierrors.IsForbidden(err) {
				t.Fatalf("error %d: want Forbidden, got %v", len(at)+1, err)
			}
			at = append(at, time.Now())
		case <-deadline:
			t.Fatalf("only %d list errors in 60s", len(at))
		}
	}
	gaps := []time.Duration{at[1].Sub(at[0]), at[2].Sub(at[1]), at[3].Sub(at[2])}
	t.Logf("gaps between forbidden lists: %v", gaps)
	// Lower bounds only: a loaded machine can make a gap longer, never
	// shorter. Without backoff the gaps would be the round trip, a few ms.
	if gaps[0] < 700*time.Millisecond || gaps[1] < 1500*time.Millisecond || gaps[2] < 3*time.Second {
		t.Errorf("gaps %v: want at least 0.8s, 1.6s, 3.2s (client-go's backoff)", gaps)
	}
	if s.hasSynced() || handlerSynced() {
		t.Fatal("informer synced without permission to list")
	}

	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "cm-reader", Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list", "watch"}}},
	}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "cm-reader", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "cm-reader"},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "fanout-limited"}},
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	faultObjects(ctx, t, admin, ns, set, 5, 8)
	waitSynced(t, "informer synced after the grant", s.hasSynced, handlerSynced)
	want := waitConverged(ctx, t, admin, selector, []*subject{s}, map[string]*recorder{"fanout": rec})
	if len(want) != 8 {
		t.Fatalf("server lists %d objects, want 8", len(want))
	}
}
