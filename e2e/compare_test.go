package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	setLabel      = "fanout-e2e/set"
	compareNS     = 4
	compareTotal  = 2000
	compareBefore = 200 // created before the informers start
)

// TestSameWorkloadAsClientGo runs fanout's informer (the default RealFIFO,
// and the DeltaFIFO with InOrder false) and client-go's informer on the same ConfigMaps while
// 2,000 of them are created, updated, relabelled out of and back into the
// informers' selector, and deleted. Per handler and per key, the calls must
// equal client-go's, and every store and handler must end at the server's
// list.
func TestSameWorkloadAsClientGo(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	cs := c.clientset(t, "kubeconfig")
	id := runID(t)
	in, out := "cmp-"+id, "cmp-"+id+"-out"
	selector := setLabel + "=" + in
	nsName := func(i int) string { return fmt.Sprintf("cmp-%s-%d", id, i%compareNS) }
	cmName := func(i int) string { return fmt.Sprintf("cm-%04d", i) }
	for i := 0; i < compareNS; i++ {
		createNamespace(ctx, t, cs, nsName(i))
	}
	create := func(i int) error {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: cmName(i), Namespace: nsName(i), Labels: map[string]string{setLabel: in}},
			Data:       map[string]string{"v": "1"},
		}
		_, err := cs.CoreV1().ConfigMaps(nsName(i)).Create(ctx, cm, metav1.CreateOptions{})
		return err
	}
	if err := parallel(compareBefore, 8, create); err != nil {
		t.Fatalf("create: %v", err)
	}
	// The informers' first lists may be served from the watch cache
	// (resourceVersion "0", fanout's default without watch-list), which can
	// lag the writes just made: an object it misses reaches that informer
	// as a watch add (not initial) and the call sequences differ for a
	// reason that is not the informers'. Start them once the cache has
	// every object.
	eventually(t, 30*time.Second, "watch cache holds the initial objects", func() string {
		l, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: "0"})
		if err != nil {
			return err.Error()
		}
		if len(l.Items) < compareBefore {
			return fmt.Sprintf("%d of %d listed from the cache", len(l.Items), compareBefore)
		}
		return ""
	})

	subjects := []*subject{
		newFanoutSubject(t, "fanout", cs, "", selector, false),
		newFanoutSubject(t, "fanout-inorder", cs, "", selector, true),
		newClientGoSubject(t, "client-go", cs, "", selector),
	}
	early := map[string]*recorder{}
	late := map[string]*recorder{}
	var synced []func() bool
	for _, s := range subjects {
		early[s.name] = newRecorder()
		f, err := s.addHandler(early[s.name])
		if err != nil {
			t.Fatal(err)
		}
		synced = append(synced, s.hasSynced, f)
	}
	startAll(t, subjects...)
	waitSynced(t, "informers synced", synced...)
	// A second handler joins each informer after its initial list.
	synced = nil
	for _, s := range subjects {
		late[s.name] = newRecorder()
		f, err := s.addHandler(late[s.name])
		if err != nil {
			t.Fatal(err)
		}
		synced = append(synced, f)
	}
	waitSynced(t, "late handlers synced", synced...)

	// The workload.
	step := func(what string, pick func(i int) bool, f func(cm *corev1.ConfigMap)) {
		t.Helper()
		err := parallel(compareTotal, 8, func(i int) error {
			if !pick(i) {
				return nil
			}
			cms := cs.CoreV1().ConfigMaps(nsName(i))
			cm, err := cms.Get(ctx, cmName(i), metav1.GetOptions{})
			if err != nil {
				return err
			}
			f(cm)
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	deleted := func(i int) bool { return i%7 == 3 }
	if err := parallel(compareTotal-compareBefore, 8, func(i int) error { return create(compareBefore + i) }); err != nil {
		t.Fatalf("create: %v", err)
	}
	step("update", func(i int) bool { return i%2 == 0 }, func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	step("relabel out", func(i int) bool { return i%5 == 1 }, func(cm *corev1.ConfigMap) { cm.Labels[setLabel] = out })
	step("update again", func(i int) bool { return i%3 == 0 }, func(cm *corev1.ConfigMap) { cm.Data["w"] = "3" })
	err := parallel(compareTotal, 8, func(i int) error {
		if !deleted(i) {
			return nil
		}
		return cs.CoreV1().ConfigMaps(nsName(i)).Delete(ctx, cmName(i), metav1.DeleteOptions{})
	})
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	step("relabel in", func(i int) bool { return i%10 == 1 && !deleted(i) }, func(cm *corev1.ConfigMap) { cm.Labels[setLabel] = in })

	all := map[string]*recorder{}
	for name, r := range early {
		all[name+"/early"] = r
	}
	for name, r := range late {
		all[name+"/late"] = r
	}
	want := waitConverged(ctx, t, cs, selector, subjects, all)
	if len(want) < compareTotal/2 {
		t.Fatalf("server lists only %d objects; the workload went wrong", len(want))
	}

	for _, handlers := range []map[string]*recorder{early, late} {
		ref, refTotal := handlers["client-go"].sequences()
		// create + at least the updates of even indices, relabels and deletes
		if refTotal < compareTotal+compareTotal/2 {
			t.Errorf("client-go handler saw only %d calls", refTotal)
		}
		for _, name := range []string{"fanout", "fanout-inorder"} {
			got, total := handlers[name].sequences()
			if d := diffSequences(ref, got); d != "" {
				t.Errorf("%s vs client-go: %s", name, d)
			}
			t.Logf("%s: %d calls on %d keys (client-go: %d)", name, total, len(got), refTotal)
		}
	}
	checkCompareShape(t, early["fanout"], nsName, cmName)
}

// checkCompareShape spot-checks what the calls of one handler must look
// like, independently of client-go.
func checkCompareShape(t *testing.T, r *recorder, nsName, cmName func(int) string) {
	t.Helper()
	seqs, _ := r.sequences()
	key := func(i int) string { return nsName(i) + "/" + cmName(i) }
	kind := func(ev string) string {
		for j := 0; j < len(ev); j++ {
			if ev[j] == ' ' {
				return ev[:j]
			}
		}
		return ev
	}
	// cm 0: created before start (initial add), updated twice, kept.
	if s := seqs[key(0)]; len(s) != 3 || kind(s[0]) != "add" || kind(s[1]) != "update" || kind(s[2]) != "update" {
		t.Errorf("%s: want add initial, update, update; got %v", key(0), s)
	}
	// cm 3: initial add, then deleted (3%2 != 0, 3%3 == 0: one update first).
	if s := seqs[key(3)]; len(s) != 3 || kind(s[1]) != "update" || kind(s[2]) != "delete" {
		t.Errorf("%s: want add, update, delete; got %v", key(3), s)
	}
	// cm 1001: created by the watch, relabelled out (a delete), back in (an add).
	if s := seqs[key(1001)]; len(s) != 3 || s[0][len(s[0])-7:] == "initial" || kind(s[1]) != "delete" || kind(s[2]) != "add" {
		t.Errorf("%s: want add, delete, add; got %v", key(1001), s)
	}
}
