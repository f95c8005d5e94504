package e2e

import (
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	serversharding "k8s.io/apiserver/pkg/sharding"

	"github.com/kfanout/fanout/contrib/sharding"
)

// TestRangeSelectorIsTheServers checks contrib/sharding's shard selectors
// against the apiserver's own parser and matcher (k8s.io/apiserver v0.37):
// every range's selector string parses, and for random objects the server's
// selector picks exactly the objects the range's client-side match picks,
// and each object lands in exactly one range. contrib/sharding writes and
// evaluates selectors itself (its go.mod is on apimachinery v0.35, which has
// no sharding package), so this is what ties the two together.
func TestRangeSelectorIsTheServers(t *testing.T) {
	src := rand.NewChaCha8([32]byte{7, 11})
	rng := rand.New(src)
	objects := make([]*corev1.ConfigMap, 300)
	for i := range objects {
		objects[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns-" + string(rune('a'+rng.IntN(26))) + string(rune('a'+rng.IntN(26))),
			UID:       types.UID(uuid.Must(uuid.NewRandomFromReader(src)).String()),
		}}
	}
	for _, n := range []int{1, 2, 4, 64, 1 << 16} {
		ranges := make([]sharding.Range, n)
		for i := range ranges {
			ranges[i] = sharding.Range{Index: i, Count: n}
		}
		// Checking every range of 2^16 against every object is slow; a
		// sample of ranges, the first and last among them, is enough.
		check := ranges
		if n > 64 {
			check = []sharding.Range{ranges[0], ranges[1], ranges[n/2], ranges[n-1]}
			for range 20 {
				check = append(check, ranges[rng.IntN(n)])
			}
		}
		for _, key := range []sharding.Key{sharding.KeyUID, sharding.KeyNamespace} {
			held := make([]int, len(objects))
			for _, r := range check {
				sel, err := serversharding.Parse(r.Selector(key))
				if err != nil {
					t.Fatalf("range %v: the apiserver rejects %q: %v", r, r.Selector(key), err)
				}
				if got := sel.String(); got != r.Selector(key) {
					t.Errorf("range %v: the apiserver reads %q as %q", r, r.Selector(key), got)
				}
				for i, obj := range objects {
					server, err := sel.Matches(obj)
					if err != nil {
						t.Fatal(err)
					}
					client, err := r.Matches(key, obj)
					if err != nil {
						t.Fatal(err)
					}
					if server != client {
						t.Fatalf("range %v key %s object %s/%s: server match %v, client match %v", r, key, obj.Namespace, obj.UID, server, client)
					}
					if client {
						held[i]++
					}
				}
			}
			if n > 64 {
				continue
			}
			for i, c := range held {
				if c != 1 {
					t.Errorf("n=%d key %s: object %d is in %d ranges", n, key, i, c)
				}
			}
		}
	}
}
