package deltafifo

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// rstep is one producer call on a RealFIFO.
type rstep func(f *RealFIFO) error

func rAdd(obj tobj) rstep    { return func(f *RealFIFO) error { return f.Add(obj) } }
func rUpdate(obj tobj) rstep { return func(f *RealFIFO) error { return f.Update(obj) } }
func rDelete(obj tobj) rstep { return func(f *RealFIFO) error { return f.Delete(obj) } }
func rReplace(rv string, objs ...any) rstep {
	return func(f *RealFIFO) error { return f.Replace(objs, rv) }
}
func rResync() rstep                { return func(f *RealFIFO) error { return f.Resync() } }
func rBookmark(rv string) rstep     { return func(f *RealFIFO) error { return f.Bookmark(rv) } }
func d(t DeltaType, obj any) Deltas { return Deltas{{Type: t, Object: obj}} }

func atomicOpts() RealFIFOOptions {
	return RealFIFOOptions{KeyFunction: tkey, AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true}
}

func TestRealFIFOQueueRules(t *testing.T) {
	cases := []struct {
		name  string
		opts  RealFIFOOptions
		steps []rstep
		want  []Deltas
	}{{
		name:  "every change is its own delta, in order; deletes always queue",
		opts:  RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()},
		steps: []rstep{rAdd(o("a", 1)), rAdd(o("b", 1)), rUpdate(o("a", 2)), rDelete(o("a", 3)), rDelete(o("a", 4)), rDelete(o("z", 1))},
		want: []Deltas{
			d(Added, o("a", 1)), d(Added, o("b", 1)), d(Updated, o("a", 2)),
			d(Deleted, o("a", 3)), d(Deleted, o("a", 4)), d(Deleted, o("z", 1)),
		},
	}, {
		name: "non-atomic replace: queued tombstones, known tombstones, then the list",
		opts: RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf(o("k", 0), o("b", 0), o("q", 0), o("x", 0))},
		steps: []rstep{
			rAdd(o("q", 1)), rUpdate(o("q", 2)), // queued, missing: tombstone with q2
			rAdd(o("x", 1)), rDelete(o("x", 2)), // last queued is a delete: no tombstone
			rAdd(o("b", 1)), // queued and listed: nothing
			rReplace("10", o("n", 1), o("b", 2)),
		},
		want: []Deltas{
			d(Added, o("q", 1)), d(Updated, o("q", 2)), d(Added, o("x", 1)), d(Deleted, o("x", 2)), d(Added, o("b", 1)),
			{tomb("q", o("q", 2))},
			{tomb("k", o("k", 0))},
			d(Replaced, o("n", 1)), d(Replaced, o("b", 2)),
		},
	}, {
		name:  "non-atomic replace: unreadable known keys get tombstones without object",
		opts:  RealFIFOOptions{KeyFunction: tkey, KnownObjects: &known{objs: map[string]any{}, missing: []string{"m"}, failing: []string{"f"}}},
		steps: []rstep{rReplace("1")},
		want:  []Deltas{{tomb("f", nil)}, {tomb("m", nil)}},
	}, {
		name:  "non-atomic resync: Sync for known keys with nothing queued",
		opts:  RealFIFOOptions{KeyFunction: tkey, KnownObjects: &known{objs: map[string]any{"a": o("a", 0), "b": o("b", 0)}, missing: []string{"m"}, failing: []string{"f"}}},
		steps: []rstep{rUpdate(o("b", 1)), rResync()},
		want:  []Deltas{d(Updated, o("b", 1)), d(Sync, o("a", 0))},
	}, {
		name:  "atomic replace and resync are one delta each; objects are not keyed",
		opts:  atomicOpts(),
		steps: []rstep{rAdd(o("a", 1)), rReplace("7", o("b", 1), o("", 2)), rResync()},
		want: []Deltas{
			d(Added, o("a", 1)),
			d(ReplacedAll, ReplacedAllInfo{ResourceVersion: "7", Objects: []any{o("b", 1), o("", 2)}}),
			d(SyncAll, SyncAllInfo{}),
		},
	}, {
		name:  "bookmarks are queued when asked for",
		opts:  atomicOpts(),
		steps: []rstep{rBookmark("5"), rAdd(o("a", 1))},
		want:  []Deltas{d(Bookmark, BookmarkInfo{ResourceVersion: "5"}), d(Added, o("a", 1))},
	}, {
		name:  "bookmarks are dropped otherwise",
		opts:  RealFIFOOptions{KeyFunction: tkey, AtomicEvents: true},
		steps: []rstep{rBookmark("5"), rAdd(o("a", 1))},
		want:  []Deltas{d(Added, o("a", 1))},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewRealFIFOWithOptions(tc.opts)
			for i, s := range tc.steps {
				require.NoError(t, s(f), "step %d", i)
			}
			require.Equal(t, tc.want, popAll(t, f))
		})
	}
}

func TestRealFIFOTransformer(t *testing.T) {
	t.Run("non-atomic", func(t *testing.T) {
		tr := &countingTransform{}
		f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf(o("k", 0)), Transformer: tr.fn})
		require.NoError(t, f.Add(o("a", 1)))
		require.NoError(t, f.Replace([]any{o("b", 1)}, "1"))
		require.NoError(t, f.Resync())
		require.Equal(t, 2, tr.calls, "tombstones are not transformed")
		// k is queued (its tombstone), so Resync adds nothing yet.
		require.Equal(t, []Deltas{
			d(Added, o("a", 101)),
			{tomb("a", o("a", 101))},
			{tomb("k", o("k", 0))},
			d(Replaced, o("b", 101)),
		}, popAll(t, f))
		require.NoError(t, f.Resync())
		require.Equal(t, []Deltas{d(Sync, o("k", 0))}, popAll(t, f))
		require.Equal(t, 2, tr.calls, "Sync is not transformed")
		require.ErrorIs(t, f.Add(o("refuse", 1)), errTransform)
		require.EqualError(t, f.Replace([]any{o("refuse", 1)}, ""), "couldn't enqueue object: transform refused")
	})
	t.Run("atomic", func(t *testing.T) {
		tr := &countingTransform{}
		opts := atomicOpts()
		opts.Transformer = tr.fn
		f := NewRealFIFOWithOptions(opts)
		require.NoError(t, f.Replace([]any{o("a", 1), o("b", 1)}, "3"))
		require.Equal(t, 2, tr.calls)
		require.Equal(t, []Deltas{d(ReplacedAll, ReplacedAllInfo{ResourceVersion: "3", Objects: []any{o("a", 101), o("b", 101)}})}, popAll(t, f))
		require.ErrorIs(t, f.Replace([]any{o("refuse", 1)}, ""), errTransform)
		require.Equal(t, 0, f.Len(), "a refused relist queues nothing")
	})
}

func TestRealFIFOKeyErrors(t *testing.T) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()})
	bad := o("", 1)
	for name, err := range map[string]error{
		"Add":     f.Add(bad),
		"Update":  f.Update(bad),
		"Delete":  f.Delete(bad),
		"Replace": f.Replace([]any{o("a", 1), bad}, ""),
	} {
		var ke KeyError
		require.True(t, errors.As(err, &ke), "%s: %v is not a KeyError", name, err)
		require.Equal(t, bad, ke.Obj, name)
		require.ErrorIs(t, err, errNoKey, name)
	}
	// A non-atomic Replace keys its whole list first: nothing was queued.
	require.Equal(t, 0, f.Len())

	// A refused Replace does not populate the queue.
	g := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()})
	require.Error(t, g.Replace([]any{bad}, ""))
	require.False(t, g.HasSynced())
	require.NoError(t, g.Replace(nil, ""))
	require.True(t, g.HasSynced())
}

func TestRealFIFOConstructorPanics(t *testing.T) {
	k := knownOf()
	invalid := map[string]RealFIFOOptions{
		"atomic with known objects":        {AtomicEvents: true, KnownObjects: k},
		"unlock without atomic":            {KnownObjects: k, UnlockWhileProcessing: true},
		"non-atomic without known objects": {},
		"bookmarks without atomic":         {KnownObjects: k, EmitDeltaTypeBookmark: true},
	}
	for name, opts := range invalid {
		require.Panics(t, func() { NewRealFIFOWithOptions(opts) }, name)
	}
	require.NotPanics(t, func() { NewRealFIFOWithOptions(atomicOpts()) })
	require.NotPanics(t, func() { NewRealFIFO(tkey, k, nil) })
}

func TestRealFIFONames(t *testing.T) {
	require.Equal(t, "RealFIFO", NewRealFIFOWithOptions(atomicOpts()).Name())
	opts := atomicOpts()
	opts.Name = "pods"
	f := NewRealFIFOWithOptions(opts)
	require.Equal(t, "pods", f.Name())
	require.Equal(t, "pods", f.HasSyncedChecker().Name())
	require.Nil(t, f.Transformer())
}

// A queue that never drains keeps its order and reuses its popped slots;
// one that drains a large burst drops its slices.
func TestRealFIFOReusesPoppedSlots(t *testing.T) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()})
	const depth = 5
	popOne := func() string {
		var key string
		_, err := f.Pop(func(obj any, _ bool) error {
			key = obj.(Deltas)[0].Object.(tobj).name
			return nil
		})
		require.NoError(t, err)
		return key
	}
	for i := range depth {
		require.NoError(t, f.Add(o(fmt.Sprint(i), i)))
	}
	for i := depth; i < 10_000; i++ {
		require.NoError(t, f.Add(o(fmt.Sprint(i), i)))
		require.Equal(t, fmt.Sprint(i-depth), popOne())
		require.Equal(t, depth, f.Len())
	}
	require.LessOrEqual(t, cap(f.items), 4*(depth+1), "slice grew with the deltas that went through it")
	require.Len(t, f.keys, len(f.items))
	for i := range f.head {
		require.Zero(t, f.items[i], "a popped slot still holds its delta")
		require.Zero(t, f.keys[i], "a popped slot still holds its key")
	}
	for f.Len() > 0 {
		popOne()
	}
	for i := range shrinkAbove + 1 {
		require.NoError(t, f.Add(o(fmt.Sprint(i), i)))
	}
	for i := range shrinkAbove + 1 {
		require.Equal(t, fmt.Sprint(i), popOne())
	}
	require.Zero(t, cap(f.items))
	require.Zero(t, cap(f.keys))
}
