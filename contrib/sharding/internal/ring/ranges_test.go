package ring

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kshard "k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

func TestRangesRejectsNonPowerOfTwo(t *testing.T) {
	for _, n := range []int{0, -1, 3, 6, 1<<16 + 1, 1 << 17} {
		_, err := Ranges(n)
		assert.Error(t, err, "n=%d", n)
	}
	for _, n := range []int{1, 2, 64, 1 << 16} {
		rs, err := Ranges(n)
		require.NoError(t, err, "n=%d", n)
		assert.Len(t, rs, n)
	}
}

func TestRangeSelectorStrings(t *testing.T) {
	rs, err := Ranges(2)
	require.NoError(t, err)
	assert.Equal(t, "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", rs[0].Selector(KeyUID).String())
	assert.Equal(t, "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')", rs[1].Selector(KeyUID).String())
	one, err := Ranges(1)
	require.NoError(t, err)
	assert.Equal(t, "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')", one[0].Selector(KeyNamespace).String())
	four, err := Ranges(4)
	require.NoError(t, err)
	assert.Equal(t, kshard.ShardRangeRequirement{Key: string(KeyUID), Start: "0x4000000000000000", End: "0x8000000000000000"}, four[1].Requirement(KeyUID))
}

// TestRangeMatchesApimachinery checks that Contains, RangeIndex and
// HashObject agree with apimachinery's selector evaluation for random uids,
// so client-side filtering and the server's filtering pick the same objects.
func TestRangeMatchesApimachinery(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 8, 64} {
		rs, err := Ranges(n)
		require.NoError(t, err)
		for range 500 {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Namespace: "ns-" + string(rune('a'+rng.IntN(26))),
				UID:       types.UID(leasetest.RandomUID(rng)),
			}}
			for _, key := range []Key{KeyUID, KeyNamespace} {
				h, err := HashObject(key, cm)
				require.NoError(t, err)
				idx := RangeIndex(h, n)
				for _, r := range rs {
					want, err := r.Selector(key).Matches(cm)
					require.NoError(t, err)
					assert.Equal(t, want, r.Contains(h), "range %v key %s", r, key)
					assert.Equal(t, want, r.Index == idx)
				}
			}
		}
	}
}

// TestNamespaceHashesCluster records a property of FNV-1a (the KEP's hash)
// that users of KeyNamespace should know: short names that differ only in
// their last characters land close together, here all in one of four
// ranges.
func TestNamespaceHashesCluster(t *testing.T) {
	idx := RangeIndex(Hash("ns-0"), 4)
	for i := range 12 {
		assert.Equal(t, idx, RangeIndex(Hash("ns-"+strconv.Itoa(i)), 4), "ns-%d", i)
	}
}
