package e2e

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// faultObjects creates n labelled ConfigMaps named cm-000.. in ns.
func faultObjects(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, set string, from, to int) {
	t.Helper()
	err := parallel(to-from, 8, func(i int) error {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", from+i), Namespace: ns, Labels: map[string]string{setLabel: set}},
			Data:       map[string]string{"v": "1"},
		}
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
}

// touchObjects updates cm-<from>..cm-<to-1> in ns.
func touchObjects(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string, from, to int, value string) {
	t.Helper()
	err := parallel(to-from, 8, func(i int) error {
		cms := cs.CoreV1().ConfigMaps(ns)
		cm, err := cms.Get(ctx, fmt.Sprintf("cm-%03d", from+i), metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data["v"] = value
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
}

// deleteObjects deletes cm-<from>..cm-<to-1> in ns.
func deleteObjects(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string, from, to int) {
	t.Helper()
	err := parallel(to-from, 8, func(i int) error {
		return cs.CoreV1().ConfigMaps(ns).Delete(ctx, fmt.Sprintf("cm-%03d", from+i), metav1.DeleteOptions{})
	})
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
}

// TestAPIServerRestartMidWatch stops the apiserver the informers watch,
// changes objects through the other apiserver while it is down, starts it
// again and keeps writing: the reflectors must recover and every store and
// handler must end at the server's state.
func TestAPIServerRestartMidWatch(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	main := c.clientset(t, "kubeconfig")
	other := c.clientset(t, "kubeconfig-nocache")
	id := runID(t)
	ns, set := "restart-"+id, "restart-"+id
	selector := setLabel + "=" + set
	createNamespace(ctx, t, main, ns)
	faultObjects(ctx, t, main, ns, set, 0, 100)

	subjects, recs := watchAll(t, main, ns, selector)
	touchObjects(ctx, t, main, ns, 0, 10, "before")
	waitConverged(ctx, t, main, selector, subjects, recs)

	c.run(t, "stop-apiserver", "main")
	touchObjects(ctx, t, other, ns, 10, 40, "while down")
	deleteObjects(ctx, t, other, ns, 40, 60)
	faultObjects(ctx, t, other, ns, set, 100, 130)
	c.run(t, "start-apiserver", "main")
	touchObjects(ctx, t, main, ns, 60, 70, "after")
	faultObjects(ctx, t, main, ns, set, 130, 140)

	want := waitConverged(ctx, t, main, selector, subjects, recs)
	if len(want) != 100-20+40 {
		t.Fatalf("server lists %d objects, want 120", len(want))
	}
	for name, r := range recs {
		seqs, _ := r.sequences()
		if s := seqs[ns+"/cm-045"]; len(s) == 0 || s[len(s)-1][:6] != "delete" {
			t.Errorf("%s: cm-045 was deleted while the apiserver was down; calls %v", name, s)
		}
	}
}
