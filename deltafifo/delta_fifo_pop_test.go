package deltafifo

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
)

// popRecord is what one Pop showed the process function.
type popRecord struct {
	key       string
	initial   bool
	hasSynced bool // f.sync.hasSynced() as seen from inside process
}

// recordPops pops n items and records, from inside process, the item, the
// isInInitialList flag and the queue's synced state (read directly: the
// lock is held during process).
func recordPops(t *testing.T, f *DeltaFIFO, n int) []popRecord {
	t.Helper()
	var out []popRecord
	for range n {
		_, err := f.Pop(func(obj any, initial bool) error {
			key, err := f.KeyOf(obj)
			require.NoError(t, err)
			out = append(out, popRecord{key, initial, f.sync.hasSynced()})
			return nil
		})
		require.NoError(t, err)
	}
	return out
}

func TestDeltaFIFOHasSynced(t *testing.T) {
	cases := []struct {
		name       string
		known      *known
		steps      []dstep
		syncedNow  bool
		wantPops   []popRecord
		syncedLast bool
	}{{
		name:       "nothing happened",
		syncedNow:  false,
		syncedLast: false,
	}, {
		name:       "add before replace",
		steps:      []dstep{dAdd(o("a", 1)), dReplace(o("b", 1))},
		syncedNow:  true,
		wantPops:   []popRecord{{"a", false, true}, {"b", false, true}},
		syncedLast: true,
	}, {
		name:       "delete before replace, even when ignored",
		steps:      []dstep{dDelete(o("a", 1)), dReplace(o("b", 1))},
		syncedNow:  true,
		wantPops:   []popRecord{{"b", false, true}},
		syncedLast: true,
	}, {
		name:      "first replace: synced when its last key is taken, before process",
		steps:     []dstep{dReplace(o("a", 1), o("b", 1)), dAdd(o("c", 1))},
		syncedNow: false,
		wantPops: []popRecord{
			{"a", true, false},
			{"b", true, true},
			{"c", false, true},
		},
		syncedLast: true,
	}, {
		name:       "a duplicate in the list counts once",
		steps:      []dstep{dReplace(o("a", 1), o("a", 2))},
		wantPops:   []popRecord{{"a", true, true}},
		syncedLast: true,
	}, {
		name:  "tombstones count, for queued and known keys",
		known: knownOf(o("k", 0), o("j", 0)),
		// Resync queues j and k without populating the queue; Replace
		// lists a, and j and k get tombstones in place: a count of three.
		steps:      []dstep{dResync(), dReplace(o("a", 1))},
		wantPops:   []popRecord{{"j", true, false}, {"k", true, false}, {"a", true, true}},
		syncedLast: true,
	}, {
		name:       "tombstones of known keys count",
		known:      knownOf(o("k", 0)),
		steps:      []dstep{dReplace(o("a", 1))},
		wantPops:   []popRecord{{"a", true, false}, {"k", true, true}},
		syncedLast: true,
	}, {
		name:       "an empty first replace syncs at once",
		steps:      []dstep{dReplace(), dAdd(o("a", 1))},
		syncedNow:  true,
		wantPops:   []popRecord{{"a", false, true}},
		syncedLast: true,
	}, {
		name:       "a second replace does not reset it",
		steps:      []dstep{dReplace(), dReplace(o("a", 1))},
		syncedNow:  true,
		wantPops:   []popRecord{{"a", false, true}},
		syncedLast: true,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := DeltaFIFOOptions{KeyFunction: tkey}
			if tc.known != nil {
				opts.KnownObjects = tc.known
			}
			f := NewDeltaFIFOWithOptions(opts)
			for i, s := range tc.steps {
				require.NoError(t, s(f), "step %d", i)
			}
			require.Equal(t, tc.syncedNow, f.HasSynced())
			require.Equal(t, tc.wantPops, recordPops(t, f, len(tc.wantPops)))
			require.Equal(t, tc.syncedLast, f.HasSynced())
			select {
			case <-f.HasSyncedChecker().Done():
				require.True(t, tc.syncedLast, "Done closed but HasSynced is false")
			default:
				require.False(t, tc.syncedLast, "Done open but HasSynced is true")
			}
		})
	}
}

func TestDeltaFIFOPopErrorDropsItem(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	require.NoError(t, f.Add(o("a", 1)))
	require.NoError(t, f.Add(o("b", 1)))
	boom := errors.New("boom")
	item, err := f.Pop(func(any, bool) error { return boom })
	require.ErrorIs(t, err, boom)
	require.Equal(t, Deltas{{Added, o("a", 1)}}, item)
	require.Equal(t, []string{"b"}, f.ListKeys())
}

func TestDeltaFIFOProcessRunsUnderLock(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	require.NoError(t, f.Add(o("a", 1)))
	_, err := f.Pop(func(any, bool) error {
		if f.mu.TryLock() {
			f.mu.Unlock()
			return errors.New("the queue lock was free during process")
		}
		return nil
	})
	require.NoError(t, err)
}

func TestDeltaFIFOPopBlocksUntilAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
		got := make(chan any, 1)
		go func() {
			item, _ := f.Pop(func(any, bool) error { return nil })
			got <- item
		}()
		synctest.Wait()
		require.Empty(t, got, "Pop returned from an empty queue")
		require.NoError(t, f.Add(o("a", 1)))
		synctest.Wait()
		require.Equal(t, Deltas{{Added, o("a", 1)}}, <-got)
	})
}

func TestDeltaFIFOClose(t *testing.T) {
	t.Run("close wakes a blocked Pop", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
			errc := make(chan error, 1)
			go func() {
				_, err := f.Pop(func(any, bool) error {
					t.Error("process called on a closed, empty queue")
					return nil
				})
				errc <- err
			}()
			synctest.Wait()
			require.Empty(t, errc)
			f.Close()
			synctest.Wait()
			require.ErrorIs(t, <-errc, ErrFIFOClosed)
		})
	})
	t.Run("queued items are still delivered", func(t *testing.T) {
		f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
		require.NoError(t, f.Add(o("a", 1)))
		require.False(t, f.IsClosed())
		f.Close()
		require.True(t, f.IsClosed())
		require.NoError(t, f.Add(o("b", 1)), "producers keep working after Close")
		require.Equal(t, []Deltas{{{Added, o("a", 1)}}, {{Added, o("b", 1)}}}, popAll(t, f))
		item, err := f.Pop(func(any, bool) error { return nil })
		require.Nil(t, item)
		require.ErrorIs(t, err, ErrFIFOClosed)
		require.EqualError(t, err, "DeltaFIFO: manipulating with closed queue")
	})
}

func TestDeltaFIFONameAndDefaults(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{})
	require.Equal(t, "DeltaFIFO", f.Name())
	require.Equal(t, "DeltaFIFO", f.HasSyncedChecker().Name())
	require.Nil(t, f.Transformer())
	named := NewDeltaFIFOWithOptions(DeltaFIFOOptions{Name: "pods"})
	require.Equal(t, "pods", named.Name())
}
