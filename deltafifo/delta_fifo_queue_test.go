package deltafifo

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// popKey pops one item and returns its key.
func popKey(t *testing.T, f *DeltaFIFO) string {
	t.Helper()
	item, err := f.Pop(func(any, bool) error { return nil })
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
	for _, e := range f.queue[:f.head] {
		require.Empty(t, e, "a popped slot still holds its entry")
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
			list := make([]any, tc.n)
			for i := range list {
				list[i] = o(fmt.Sprintf("k%05d", i), i)
			}
			require.NoError(t, f.Replace(list, "1"))
			require.Equal(t, tc.n, f.indexPeak)
			for i := range list {
				require.Equal(t, fmt.Sprintf("k%05d", i), popKey(t, f))
			}
			require.True(t, f.HasSynced())
			require.Zero(t, f.Len())
			if tc.wantDrop {
				require.Zero(t, f.indexPeak)
				require.Zero(t, cap(f.queue))
			} else {
				require.Equal(t, tc.n, f.indexPeak)
				require.Equal(t, tc.n, cap(f.queue))
			}
			// The queue still works afterwards.
			require.NoError(t, f.Add(o("again", 1)))
			require.Equal(t, "again", popKey(t, f))
		})
	}
}

// popKeyed pops what Pop pops, in the same order and with the same
// initial-list flag, and gives the key the Deltas were queued under.
func TestDeltaFIFOKeyedPop(t *testing.T) {
	build := func() *DeltaFIFO {
		f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf(o("gone", 1)), EmitDeltaTypeReplaced: true})
		require.NoError(t, f.Add(o("queued", 1)))
		require.NoError(t, f.Replace([]any{o("a", 1), o("b", 1)}, "1"))
		require.NoError(t, f.Update(o("a", 2)))
		require.NoError(t, f.Delete(o("b", 2)))
		return f
	}
	type rec struct {
		key     string
		deltas  Deltas
		initial bool
	}
	plain, keyed := build(), build()
	var want, got []rec
	for plain.Len() > 0 {
		_, err := plain.Pop(func(obj any, initial bool) error {
			key, err := plain.KeyOf(obj)
			require.NoError(t, err)
			want = append(want, rec{key, obj.(Deltas), initial})
			return nil
		})
		require.NoError(t, err)
	}
	for keyed.Len() > 0 {
		require.NoError(t, keyed.popKeyed(false, func(p popped) error {
			require.Len(t, p.Keys, 1)
			require.False(t, p.Batch)
			got = append(got, rec{p.Keys[0], append(Deltas(nil), p.Deltas...), p.IsInInitialList})
			return nil
		}))
	}
	require.Len(t, want, 4) // queued, a, b, and gone's tombstone
	require.Equal(t, want, got)

	keyed.Close()
	require.ErrorIs(t, keyed.popKeyed(false, func(popped) error {
		t.Fatal("process called on a closed, empty queue")
		return nil
	}), ErrFIFOClosed)
}

// While a large list drains, popped keys stay in the index as stale
// entries: they must read as not queued (GetByKey, Delete, Add), and the
// index is rebuilt once they outnumber the pending keys, with the queue's
// order and content unchanged throughout.
func TestDeltaFIFOQueueStaleIndexKeys(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	n := 5*shrinkAbove/4 + 10
	list := make([]any, n)
	for i := range list {
		list[i] = o(fmt.Sprintf("k%05d", i), i)
	}
	require.NoError(t, f.Replace(list, "1"))
	for i := range 3 {
		require.Equal(t, fmt.Sprintf("k%05d", i), popKey(t, f))
	}
	require.Equal(t, 3, f.stale, "a large index keeps popped keys")

	_, exists, err := f.GetByKey("k00001")
	require.NoError(t, err)
	require.False(t, exists, "a popped key reads as queued")
	require.NoError(t, f.Delete(o("k00002", 9)))
	require.Equal(t, n-3, f.Len(), "Delete of a popped key queued a deletion")
	require.NoError(t, f.Add(o("k00000", 7)))
	require.Equal(t, n-2, f.Len())
	require.Equal(t, 2, f.stale, "a requeued key is no longer stale")
	item, exists, err := f.GetByKey("k00000")
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, Deltas{{Type: Added, Object: o("k00000", 7)}}, item)

	// Pop past the point where stale keys outnumber pending ones.
	for i := 3; i < n-shrinkAbove/4+1; i++ {
		require.Equal(t, fmt.Sprintf("k%05d", i), popKey(t, f))
	}
	require.Zero(t, f.stale, "stale keys were not dropped")
	require.Equal(t, len(f.queue)-f.head+f.stale, len(f.index))
	for i := n - shrinkAbove/4 + 1; i < n; i++ {
		require.Equal(t, fmt.Sprintf("k%05d", i), popKey(t, f))
		_, exists, err := f.GetByKey(fmt.Sprintf("k%05d", i))
		require.NoError(t, err)
		require.False(t, exists)
	}
	require.Equal(t, []string{"k00000"}, f.ListKeys())
	require.Equal(t, "k00000", popKey(t, f))
	require.Zero(t, f.stale)
	require.Empty(t, f.index, "a drained queue keeps stale keys")
}

// A large Replace cuts its Deltas from shared chunks: appending to one
// (a later Update, or a duplicate in the list) must leave its neighbours
// alone.
func TestDeltaFIFOQueueChunkedDeltasAreIndependent(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey, EmitDeltaTypeReplaced: true})
	list := make([]any, 100)
	for i := range list {
		list[i] = o(fmt.Sprintf("k%03d", i), i)
	}
	list = append(list, o("k001", 1000))
	require.NoError(t, f.Replace(list, "1"))
	require.NoError(t, f.Update(o("k000", 2000)))
	want := map[string]Deltas{
		"k000": {{Type: Replaced, Object: o("k000", 0)}, {Type: Updated, Object: o("k000", 2000)}},
		"k001": {{Type: Replaced, Object: o("k001", 1)}, {Type: Replaced, Object: o("k001", 1000)}},
		"k002": {{Type: Replaced, Object: o("k002", 2)}},
		"k003": {{Type: Replaced, Object: o("k003", 3)}},
	}
	for key, d := range want {
		got, exists, err := f.GetByKey(key)
		require.NoError(t, err)
		require.True(t, exists)
		require.Equal(t, d, got, key)
	}
	require.Nil(t, f.spare, "Replace kept its unused chunk")
}
