package ring

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randomMembers(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("replica-%d-%x", i, rng.Uint32())
	}
	return out
}

func TestAssignDeterministicAndOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		ms := randomMembers(rng, 1+rng.IntN(9))
		want := Assign(ms, 64)
		shuffled := slices.Clone(ms)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		shuffled = append(shuffled, shuffled[0]) // a duplicate changes nothing
		assert.Equal(t, want, Assign(shuffled, 64))
		for _, o := range want {
			assert.Contains(t, ms, o)
		}
	}
	assert.Equal(t, []string{"", ""}, Assign(nil, 2))
}

// TestAssignBalance bounds every member's share for random member sets:
// with 256 ranges and up to 8 members no member gets more than twice or
// less than a third of the mean.
func TestAssignBalance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const count = 256
	for range 300 {
		m := 1 + rng.IntN(8)
		ms := randomMembers(rng, m)
		got := map[string]int{}
		for _, o := range Assign(ms, count) {
			got[o]++
		}
		mean := float64(count) / float64(m)
		for _, name := range ms {
			n := float64(got[name])
			assert.LessOrEqual(t, n, 2*mean, "members %v", ms)
			assert.GreaterOrEqual(t, n, mean/3, "members %v", ms)
		}
	}
}

// TestAssignMinimalMovement: a joining member takes ranges only for itself,
// and a leaving member's ranges are the only ones that move.
func TestAssignMinimalMovement(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const count = 128
	for range 300 {
		ms := randomMembers(rng, 1+rng.IntN(8))
		before := Assign(ms, count)

		joiner := fmt.Sprintf("joiner-%x", rng.Uint64())
		after := Assign(append(slices.Clone(ms), joiner), count)
		moved := 0
		for i := range before {
			if before[i] != after[i] {
				moved++
				assert.Equal(t, joiner, after[i], "range %d moved to a member that did not join", i)
			}
		}
		assert.Positive(t, moved, "a joiner takes at least one of %d ranges", count)

		leaver := ms[rng.IntN(len(ms))]
		rest := slices.DeleteFunc(slices.Clone(ms), func(s string) bool { return s == leaver })
		after = Assign(rest, count)
		for i := range before {
			if before[i] != leaver {
				assert.Equal(t, before[i], after[i], "range %d moved though its owner stayed", i)
			} else if len(rest) > 0 {
				assert.NotEqual(t, leaver, after[i])
			}
		}
	}
}

func TestOwnedPartitionsRanges(t *testing.T) {
	ms := []string{"a", "b", "c"}
	var all []int
	for _, m := range ms {
		all = append(all, Owned(m, ms, 32)...)
	}
	slices.Sort(all)
	want := make([]int, 32)
	for i := range want {
		want[i] = i
	}
	require.Equal(t, want, all)
}
