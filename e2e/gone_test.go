package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestRelistAfterCompaction makes the informers' resource version too old:
// they watch the apiserver without a watch cache, which is stopped while
// objects are deleted, updated and created through the other apiserver,
// and etcd is compacted past their last revision. When it returns, the
// watch gets 410 Gone; the informers relist, and objects deleted meanwhile
// reach the handlers as DeletedFinalStateUnknown tombstones; every object
// that stayed gets an update from the relist.
func TestRelistAfterCompaction(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	nocache := c.clientset(t, "kubeconfig-nocache")
	main := c.clientset(t, "kubeconfig")
	id := runID(t)
	ns, set := "gone-"+id, "gone-"+id
	selector := setLabel + "=" + set
	createNamespace(ctx, t, main, ns)
	faultObjects(ctx, t, main, ns, set, 0, 40)

	subjects, recs := watchAll(t, nocache, ns, selector)
	before, err := serverState(ctx, main, selector)
	if err != nil {
		t.Fatal(err)
	}

	c.run(t, "stop-apiserver", "nocache")
	deleteObjects(ctx, t, main, ns, 0, 10)
	touchObjects(ctx, t, main, ns, 10, 20, "2")
	touchObjects(ctx, t, main, ns, 10, 20, "3")
	faultObjects(ctx, t, main, ns, set, 40, 50)
	rev := c.run(t, "compact")
	t.Logf("etcd compacted at revision %s", rev)
	c.run(t, "start-apiserver", "nocache")

	after := waitConverged(ctx, t, main, selector, subjects, recs)
	if len(after) != 40 {
		t.Fatalf("server lists %d objects, want 40", len(after))
	}
	compacted, _ := strconv.ParseInt(rev, 10, 64)
	for name, r := range recs {
		seqs, _ := r.sequences()
		for i := 0; i < 50; i++ {
			key := fmt.Sprintf("%s/cm-%03d", ns, i)
			var want []string
			switch {
			case i < 10:
				want = []string{"add " + before[key] + " initial", "delete-unknown " + before[key]}
			case i < 20:
				// Two updates while away collapse into one relist update.
				want = []string{"add " + before[key] + " initial", "update " + before[key] + "->" + after[key]}
			case i < 40:
				// Unchanged, but the relist replaces it: an update to
				// the same version, as client-go's informer calls it.
				want = []string{"add " + before[key] + " initial", "update " + before[key] + "->" + before[key]}
			default:
				want = []string{"add " + after[key]}
			}
			if got := strings.Join(seqs[key], ", "); got != strings.Join(want, ", ") {
				t.Errorf("%s %s: want [%s], got [%s]", name, key, strings.Join(want, ", "), got)
			}
		}
		if rv, _ := strconv.ParseInt(after[fmt.Sprintf("%s/cm-%03d", ns, 49)], 10, 64); rv > compacted {
			t.Errorf("cm-049 has rv %d, after the compaction at %d: the test did not set up what it meant to", rv, compacted)
		}
	}
	ref, _ := recs["client-go"].sequences()
	for _, name := range []string{"fanout", "fanout-inorder"} {
		got, _ := recs[name].sequences()
		if d := diffSequences(ref, got); d != "" {
			t.Errorf("%s vs client-go: %s", name, d)
		}
	}
}
