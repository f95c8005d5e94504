package deltafifo

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kfanout/fanout/internal/informermetrics"
)

// batchRecord is one PopBatch call as the process functions saw it.
type batchRecord struct {
	via     string // "single" or "batch"
	keys    []string
	initial bool
}

// popBatches calls PopBatch until the queue is empty.
func popBatches(t *testing.T, f *RealFIFO) []batchRecord {
	t.Helper()
	var out []batchRecord
	keys := func(ds []Delta) []string {
		var ks []string
		for _, d := range ds {
			k, err := f.keyOf(d)
			if err != nil {
				k = "<" + string(d.Type) + ">"
			}
			ks = append(ks, k)
		}
		return ks
	}
	for f.Len() > 0 {
		err := f.PopBatch(
			func(ds []Delta, initial bool) error {
				out = append(out, batchRecord{"batch", keys(ds), initial})
				return nil
			},
			func(obj any, initial bool) error {
				out = append(out, batchRecord{"single", keys(obj.(Deltas)), initial})
				return nil
			})
		require.NoError(t, err)
	}
	return out
}

func TestRealFIFOPopBatchRules(t *testing.T) {
	many := func(n int) rstep {
		return func(f *RealFIFO) error {
			for i := range n {
				if err := f.Add(o(string(rune('A'+i/1000))+string(rune('a'+i%1000)), i)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	// breakKey makes the transformer give "b" an object without a key.
	breakKey := func(obj any) (any, error) {
		if t := obj.(tobj); t.name == "b" {
			return o("", t.val), nil
		}
		return obj, nil
	}
	cases := []struct {
		name  string
		opts  RealFIFOOptions
		steps []rstep
		want  []batchRecord
	}{{
		name:  "a batch ends before a repeated key",
		opts:  atomicOpts(),
		steps: []rstep{rAdd(o("a", 1)), rAdd(o("b", 1)), rUpdate(o("a", 2)), rDelete(o("c", 1))},
		want:  []batchRecord{{"batch", []string{"a", "b"}, false}, {"batch", []string{"a", "c"}, false}},
	}, {
		name:  "a non-batchable delta goes alone and ends the batch before it",
		opts:  atomicOpts(),
		steps: []rstep{rAdd(o("a", 1)), rBookmark("1"), rAdd(o("b", 1)), rAdd(o("c", 1)), rResync(), rReplace("2")},
		want: []batchRecord{
			{"single", []string{"a"}, false},
			{"single", []string{"<Bookmark>"}, false},
			{"batch", []string{"b", "c"}, false},
			{"single", []string{"<SyncAll>"}, false},
			{"single", []string{"<ReplacedAll>"}, false},
		},
	}, {
		name:  "a batch stops at the end of the initial population",
		opts:  RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()},
		steps: []rstep{rReplace("1", o("a", 1), o("b", 1)), rAdd(o("c", 1)), rAdd(o("d", 1))},
		want:  []batchRecord{{"batch", []string{"a", "b"}, true}, {"batch", []string{"c", "d"}, false}},
	}, {
		name:  "an atomic relist is an initial population of one",
		opts:  atomicOpts(),
		steps: []rstep{rReplace("1", o("a", 1)), rAdd(o("b", 1))},
		want:  []batchRecord{{"single", []string{"<ReplacedAll>"}, true}, {"single", []string{"b"}, false}},
	}, {
		name:  "a delta without a key is taken and ends the batch",
		opts:  RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf(), Transformer: breakKey},
		steps: []rstep{rAdd(o("a", 1)), rAdd(o("b", 1)), rAdd(o("c", 1))},
		want:  []batchRecord{{"batch", []string{"a", "<Added>"}, false}, {"single", []string{"c"}, false}},
	}, {
		name:  "at most 1000 deltas per batch",
		opts:  atomicOpts(),
		steps: []rstep{many(1500)},
		want:  nil, // checked by size below
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewRealFIFOWithOptions(tc.opts)
			for i, s := range tc.steps {
				require.NoError(t, s(f), "step %d", i)
			}
			keyed := NewRealFIFOWithOptions(tc.opts)
			for i, s := range tc.steps {
				require.NoError(t, s(keyed), "step %d", i)
			}
			got := popBatches(t, f)
			// popKeyed(true) makes the same batches, with the same keys.
			require.Equal(t, got, popBatchesKeyed(t, keyed))
			if tc.want == nil {
				require.Len(t, got, 2)
				require.Len(t, got[0].keys, 1000)
				require.Len(t, got[1].keys, 500)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// popBatchesKeyed is popBatches with popKeyed(true). A key the queue
// gives must be the delta's key; a delta it gives without key is recorded
// as popBatches records it.
func popBatchesKeyed(t *testing.T, f *RealFIFO) []batchRecord {
	t.Helper()
	record := func(keys []string, ds []Delta) []string {
		var ks []string
		for i, d := range ds {
			k, err := f.keyOf(d)
			if err != nil {
				k = "<" + string(d.Type) + ">"
			}
			if keys != nil {
				require.NoError(t, err)
				require.Equal(t, k, keys[i], "key given for %v", d)
			}
			ks = append(ks, k)
		}
		return ks
	}
	var out []batchRecord
	for f.Len() > 0 {
		err := f.popKeyed(true, func(p popped) error {
			kind := "single"
			if p.Batch {
				kind = "batch"
			}
			if p.Keys != nil {
				require.Len(t, p.Keys, len(p.Deltas))
			}
			out = append(out, batchRecord{kind, record(p.Keys, p.Deltas), p.IsInInitialList})
			return nil
		})
		require.NoError(t, err)
	}
	require.False(t, f.scratchBusy, "the scratch slices were not given back")
	for i := range f.scratch {
		require.Zero(t, f.scratch[i], "a scratch slot keeps a delta")
		require.Zero(t, f.scratchKeys[i], "a scratch slot keeps a key")
	}
	return out
}

func TestRealFIFOPop(t *testing.T) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()})
	require.NoError(t, f.Add(o("a", 1)))
	require.NoError(t, f.Update(o("a", 2)))
	boom := errors.New("boom")
	item, err := f.Pop(func(obj any, _ bool) error {
		require.Equal(t, d(Added, o("a", 1)), obj)
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, d(Added, o("a", 1)), item)
	require.Equal(t, []Deltas{d(Updated, o("a", 2))}, popAll(t, f), "the failed delta is dropped")

	require.NoError(t, f.Add(o("b", 1)))
	err = f.PopBatch(nil, func(any, bool) error { return boom })
	require.ErrorIs(t, err, boom)
	require.Equal(t, 0, f.Len())
}

func TestRealFIFOHasSynced(t *testing.T) {
	t.Run("counts every delta queued up to the first replace; done after process", func(t *testing.T) {
		f := NewRealFIFOWithOptions(atomicOpts())
		require.NoError(t, f.Bookmark("1"))
		require.False(t, f.HasSynced(), "a bookmark does not populate")
		require.NoError(t, f.Replace([]any{o("a", 1)}, "2"))
		require.NoError(t, f.Replace(nil, "3"))
		var during []bool
		var initial []bool
		for range 3 {
			_, err := f.Pop(func(_ any, init bool) error {
				// Unlocked processing: HasSynced can be asked from here.
				during = append(during, f.HasSynced())
				initial = append(initial, init)
				return nil
			})
			require.NoError(t, err)
		}
		require.Equal(t, []bool{false, false, true}, during)
		require.Equal(t, []bool{true, true, false}, initial)
		require.True(t, f.HasSynced())
		select {
		case <-f.HasSyncedChecker().Done():
		default:
			t.Fatal("Done is still open")
		}
	})
	t.Run("add first", func(t *testing.T) {
		f := NewRealFIFOWithOptions(atomicOpts())
		require.NoError(t, f.Add(o("a", 1)))
		require.True(t, f.HasSynced())
	})
	t.Run("a failing process still counts", func(t *testing.T) {
		f := NewRealFIFOWithOptions(atomicOpts())
		require.NoError(t, f.Replace(nil, "1"))
		require.False(t, f.HasSynced())
		_, err := f.Pop(func(any, bool) error { return errors.New("boom") })
		require.Error(t, err)
		require.True(t, f.HasSynced())
	})
	t.Run("non-atomic counts deltas, not keys", func(t *testing.T) {
		f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf(o("k", 0))})
		require.NoError(t, f.Replace([]any{o("a", 1), o("a", 2)}, "1"))
		require.Equal(t, []batchRecord{
			{"batch", []string{"k", "a"}, true},
			{"single", []string{"a"}, true},
		}, popBatches(t, f))
		require.True(t, f.HasSynced())
	})
}

func TestRealFIFOProcessLocking(t *testing.T) {
	lockFree := func(f *RealFIFO) bool {
		var free bool
		_, err := f.Pop(func(any, bool) error {
			if free = f.mu.TryLock(); free {
				f.mu.Unlock()
			}
			return nil
		})
		require.NoError(t, err)
		return free
	}
	locked := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()})
	require.NoError(t, locked.Add(o("a", 1)))
	require.False(t, lockFree(locked), "non-atomic queues process under the lock")

	unlocked := NewRealFIFOWithOptions(atomicOpts())
	require.NoError(t, unlocked.Add(o("a", 1)))
	require.True(t, lockFree(unlocked), "UnlockWhileProcessing releases the lock")

	// With 2000 or more deltas left behind, the lock is kept.
	for i := range 2001 {
		require.NoError(t, unlocked.Add(o("x", i)))
	}
	require.False(t, lockFree(unlocked))
	require.True(t, lockFree(unlocked), "1999 left: released again")
}

func TestRealFIFOClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewRealFIFOWithOptions(atomicOpts())
		errc := make(chan error, 2)
		go func() {
			_, err := f.Pop(func(any, bool) error { return nil })
			errc <- err
		}()
		go func() {
			errc <- f.PopBatch(nil, func(any, bool) error { return nil })
		}()
		synctest.Wait()
		require.Empty(t, errc, "Pop returned from an empty queue")
		require.NoError(t, f.Add(o("a", 1)))
		synctest.Wait()
		require.NoError(t, <-errc, "one of them got the delta")
		require.Empty(t, errc)
		f.Close()
		synctest.Wait()
		require.ErrorIs(t, <-errc, ErrFIFOClosed)
	})
	f := NewRealFIFOWithOptions(atomicOpts())
	require.NoError(t, f.Add(o("a", 1)))
	f.Close()
	require.True(t, f.IsClosed())
	require.Equal(t, []Deltas{d(Added, o("a", 1))}, popAll(t, f), "queued deltas are still delivered")
	_, err := f.Pop(func(any, bool) error { return nil })
	require.ErrorIs(t, err, ErrFIFOClosed)
	require.ErrorIs(t, f.PopBatch(nil, nil), ErrFIFOClosed)
}

// fakeMetrics records what a RealFIFO reports.
type fakeMetrics struct {
	queued    []float64
	latencies int
}

func (m *fakeMetrics) Set(v float64)   { m.queued = append(m.queued, v) }
func (m *fakeMetrics) Observe(float64) { m.latencies++ }

func (m *fakeMetrics) NewQueuedItemMetric(informermetrics.InformerNameAndResource) informermetrics.GaugeMetric {
	return m
}
func (m *fakeMetrics) NewProcessingLatencyMetric(informermetrics.InformerNameAndResource) informermetrics.HistogramMetric {
	return m
}
func (m *fakeMetrics) NewStoreResourceVersionMetric(informermetrics.InformerNameAndResource) informermetrics.GaugeMetric {
	return informermetrics.Noop{}
}

func TestRealFIFOMetrics(t *testing.T) {
	name, err := informermetrics.NewInformerName("deltafifo-test")
	require.NoError(t, err)
	defer name.Release()
	m := &fakeMetrics{}
	opts := atomicOpts()
	opts.Identifier = name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	opts.MetricsProvider = m
	f := NewRealFIFOWithOptions(opts)
	require.Equal(t, "deltafifo-test", f.Name(), "the identifier names the queue")

	require.NoError(t, f.Add(o("a", 1)))
	require.NoError(t, f.Add(o("b", 1)))
	require.NoError(t, f.Bookmark("1")) // not reported, as in client-go
	require.NoError(t, f.Resync())
	popAll(t, f)
	require.Equal(t, []float64{1, 2, 4, 3, 2, 1, 0}, m.queued)
	require.Equal(t, 4, m.latencies)

	// Without a reserved identifier nothing is reported.
	quiet := &fakeMetrics{}
	opts = atomicOpts()
	opts.MetricsProvider = quiet
	g := NewRealFIFOWithOptions(opts)
	require.NoError(t, g.Add(o("a", 1)))
	popAll(t, g)
	require.Empty(t, quiet.queued)
	require.Zero(t, quiet.latencies)
}
