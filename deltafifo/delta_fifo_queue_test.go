package deltafifo

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// popKey pops one item and returns its key.
func popKey(t *testing.T, f *DeltaFIFO) string {
	t.Helper()
	item, err := f.Pop(func(interface{}, bool) error { return nil })
	require.NoError(t, err)
	key, err := f.KeyOf(item)
	require.NoError(t, err)
	return key
}

// A queue that never drains keeps its order and reuses the popped slots:
// its key slice does not grow with the number of keys that went through.
func TestDeltaFIFOQueueReusesPoppedSlots(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	const depth = 5
	for i := range depth {
		require.NoError(t, f.Add(o(fmt.Sprint(i), i)))
	}
	for i := depth; i < 10_000; i++ {
		require.NoError(t, f.Add(o(fmt.Sprint(i), i)))
		require.Equal(t, fmt.Sprint(i-depth), popKey(t, f))
		require.Equal(t, depth, f.Len())
	}
	want := make([]string, depth)
	for i := range want {
		want[i] = fmt.Sprint(10_000 - depth + i)
	}
	require.Equal(t, want, f.ListKeys())
	require.LessOrEqual(t, cap(f.queue), 4*(depth+1), "key slice grew with the keys that went through it")
	for _, k := range f.queue[:f.head] {
		require.Empty(t, k, "a popped slot still holds its key")
	}
}

// Once a large initial list has been popped, the queue drops its map and
// key slice; a small queue keeps them.
func TestDeltaFIFOQueueShrinksAfterLargeDrain(t *testing.T) {
	for _, tc := range []struct {
		n        int
		wantDrop bool
	}{{n: shrinkAbove + 1, wantDrop: true}, {n: 100, wantDrop: false}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
			list := make([]interface{}, tc.n)
			for i := range list {
				list[i] = o(fmt.Sprintf("k%05d", i), i)
			}
			require.NoError(t, f.Replace(list, "1"))
			require.Equal(t, tc.n, f.itemsPeak)
			for i := range list {
				require.Equal(t, fmt.Sprintf("k%05d", i), popKey(t, f))
			}
			require.True(t, f.HasSynced())
			require.Zero(t, f.Len())
			if tc.wantDrop {
				require.Zero(t, f.itemsPeak)
				require.Zero(t, cap(f.queue))
			} else {
				require.Equal(t, tc.n, f.itemsPeak)
				require.Equal(t, tc.n, cap(f.queue))
			}
			// The queue still works afterwards.
			require.NoError(t, f.Add(o("again", 1)))
			require.Equal(t, "again", popKey(t, f))
		})
	}
}
