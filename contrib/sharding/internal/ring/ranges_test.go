package ring

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	assert.Equal(t, "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", rs[0].Selector(KeyUID))
	assert.Equal(t, "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')", rs[1].Selector(KeyUID))
	one, err := Ranges(1)
	require.NoError(t, err)
	assert.Equal(t, "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')", one[0].Selector(KeyNamespace))
	four, err := Ranges(4)
	require.NoError(t, err)
	assert.Equal(t, "shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')", four[1].Selector(KeyUID))
	assert.Equal(t, "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')", four[3].Selector(KeyUID))
}

// TestRangeMatches checks Matches, Contains and RangeIndex against a plain
// reference: the range whose bounds hold the FNV-1a hash of the key field,
// computed here from the hash's definition. The e2e module compares them
// with apimachinery's own selector (v0.36+).
func TestRangeMatches(t *testing.T) {
	fnv1a := func(s string) uint64 {
		h := uint64(14695981039346656037)
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		return h
	}
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
				field := string(cm.UID)
				if key == KeyNamespace {
					field = cm.Namespace
				}
				want := fnv1a(field)
				h, err := HashObject(key, cm)
				require.NoError(t, err)
				require.Equal(t, want, h)
				idx := RangeIndex(h, n)
				for _, r := range rs {
					// Range i of n holds [i*2^64/n, (i+1)*2^64/n).
					in := n == 1 || want/((1<<63)/uint64(n/2)) == uint64(r.Index)
					got, err := r.Matches(key, cm)
					require.NoError(t, err)
					assert.Equal(t, in, got, "range %v key %s", r, key)
					assert.Equal(t, in, r.Contains(h))
					assert.Equal(t, in, r.Index == idx)
				}
			}
		}
	}
}

func TestHashObjectErrors(t *testing.T) {
	_, err := HashObject(KeyUID, &metav1.Status{})
	assert.ErrorContains(t, err, "object.metadata.uid")
	_, err = HashObject("object.metadata.name", &corev1.ConfigMap{})
	assert.ErrorContains(t, err, "unsupported shard key")
	_, err = Range{Index: 0, Count: 1}.Matches("object.spec", &corev1.ConfigMap{})
	assert.Error(t, err)
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
