package deltafifo

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// dstep is one producer call on a DeltaFIFO.
type dstep func(f *DeltaFIFO) error

func dAdd(obj tobj) dstep    { return func(f *DeltaFIFO) error { return f.Add(obj) } }
func dUpdate(obj tobj) dstep { return func(f *DeltaFIFO) error { return f.Update(obj) } }
func dDelete(obj any) dstep {
	return func(f *DeltaFIFO) error { return f.Delete(obj) }
}
func dReplace(objs ...any) dstep {
	return func(f *DeltaFIFO) error { return f.Replace(objs, "rv") }
}
func dResync() dstep { return func(f *DeltaFIFO) error { return f.Resync() } }

func TestDeltaFIFOQueueRules(t *testing.T) {
	cases := []struct {
		name     string
		known    *known
		replaced bool
		steps    []dstep
		want     []Deltas
	}{{
		name:  "changes to one key accumulate at its first position",
		steps: []dstep{dAdd(o("a", 1)), dAdd(o("b", 1)), dUpdate(o("a", 2))},
		want: []Deltas{
			{{Added, o("a", 1)}, {Updated, o("a", 2)}},
			{{Added, o("b", 1)}},
		},
	}, {
		name:  "delete of an unqueued key is ignored without known objects",
		steps: []dstep{dDelete(o("a", 1)), dAdd(o("b", 1))},
		want:  []Deltas{{{Added, o("b", 1)}}},
	}, {
		name:  "delete of a queued key is queued without known objects",
		steps: []dstep{dAdd(o("a", 1)), dDelete(o("a", 2))},
		want:  []Deltas{{{Added, o("a", 1)}, {Deleted, o("a", 2)}}},
	}, {
		name:  "delete of a key known objects lacks is ignored",
		known: knownOf(o("b", 0)),
		steps: []dstep{dDelete(o("a", 1))},
		want:  nil,
	}, {
		name:  "delete of a known key is queued",
		known: knownOf(o("a", 0)),
		steps: []dstep{dDelete(o("a", 1))},
		want:  []Deltas{{{Deleted, o("a", 1)}}},
	}, {
		name:  "delete is queued when known objects fails the lookup",
		known: &known{objs: map[string]any{}, failing: []string{"a"}},
		steps: []dstep{dDelete(o("a", 1))},
		want:  []Deltas{{{Deleted, o("a", 1)}}},
	}, {
		name:  "two deletions collapse into the older one",
		steps: []dstep{dAdd(o("a", 1)), dDelete(o("a", 2)), dDelete(o("a", 3))},
		want:  []Deltas{{{Added, o("a", 1)}, {Deleted, o("a", 2)}}},
	}, {
		name:  "a deletion after a tombstone replaces the tombstone",
		known: knownOf(o("a", 0)),
		steps: []dstep{dReplace(), dDelete(o("a", 2))},
		want:  []Deltas{{{Deleted, o("a", 2)}}},
	}, {
		name:  "a tombstone after a deletion is dropped",
		steps: []dstep{dAdd(o("a", 1)), dDelete(o("a", 2)), dReplace()},
		want:  []Deltas{{{Added, o("a", 1)}, {Deleted, o("a", 2)}}},
	}, {
		name:  "only the last two deltas are compared",
		known: knownOf(o("a", 0)),
		steps: []dstep{dDelete(o("a", 1)), dUpdate(o("a", 2)), dDelete(o("a", 3))},
		want:  []Deltas{{{Deleted, o("a", 1)}, {Updated, o("a", 2)}, {Deleted, o("a", 3)}}},
	}, {
		name:  "replace emits Sync by default, then tombstones for queued and known keys",
		known: knownOf(o("k", 7), o("b", 0)),
		steps: []dstep{dAdd(o("q", 1)), dReplace(o("b", 1), o("n", 1))},
		want: []Deltas{
			{{Added, o("q", 1)}, tomb("q", o("q", 1))},
			{{Sync, o("b", 1)}},
			{{Sync, o("n", 1)}},
			{tomb("k", o("k", 7))},
		},
	}, {
		name:     "replace emits Replaced when asked",
		replaced: true,
		steps:    []dstep{dReplace(o("a", 1))},
		want:     []Deltas{{{Replaced, o("a", 1)}}},
	}, {
		name:  "a tombstone of a tombstone carries the original object",
		known: knownOf(o("a", 5)),
		steps: []dstep{dReplace(), dReplace()},
		want:  []Deltas{{tomb("a", o("a", 5))}},
	}, {
		name:  "known keys that cannot be read get a tombstone without object",
		known: &known{objs: map[string]any{}, missing: []string{"m"}, failing: []string{"f"}},
		steps: []dstep{dReplace()},
		want:  []Deltas{{tomb("f", nil)}, {tomb("m", nil)}},
	}, {
		name:  "replace does not delete a listed key",
		known: knownOf(o("a", 0)),
		steps: []dstep{dReplace(o("a", 1))},
		want:  []Deltas{{{Sync, o("a", 1)}}},
	}, {
		name:  "resync queues Sync for known keys with nothing queued",
		known: knownOf(o("a", 0), o("b", 0)),
		steps: []dstep{dUpdate(o("b", 1)), dResync()},
		want:  []Deltas{{{Updated, o("b", 1)}}, {{Sync, o("a", 0)}}},
	}, {
		name:  "resync skips keys it cannot read",
		known: &known{objs: map[string]any{"a": o("a", 0)}, missing: []string{"m"}, failing: []string{"f"}},
		steps: []dstep{dResync()},
		want:  []Deltas{{{Sync, o("a", 0)}}},
	}, {
		name:  "resync without known objects does nothing",
		steps: []dstep{dResync()},
		want:  nil,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := DeltaFIFOOptions{KeyFunction: tkey, EmitDeltaTypeReplaced: tc.replaced}
			if tc.known != nil {
				opts.KnownObjects = tc.known
			}
			f := NewDeltaFIFOWithOptions(opts)
			for i, s := range tc.steps {
				require.NoError(t, s(f), "step %d", i)
			}
			require.Equal(t, tc.want, popAll(t, f))
		})
	}
}

func TestDeltaFIFOTransformer(t *testing.T) {
	tr := &countingTransform{}
	k := knownOf(o("k", 0))
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey, KnownObjects: k, Transformer: tr.fn})
	require.NoError(t, f.Add(o("a", 1)))                // transformed
	require.NoError(t, f.Replace(nil, ""))              // tombstones for a and k: not transformed
	require.NoError(t, f.Replace([]any{o("b", 1)}, "")) // Sync, but transformed
	require.Equal(t, 2, tr.calls)
	got := popAll(t, f)
	require.Equal(t, []Deltas{
		{{Added, o("a", 101)}, tomb("a", o("a", 101))},
		{tomb("k", o("k", 0))},
		{{Sync, o("b", 101)}},
	}, got)

	// Resync's Sync carries the known object untransformed.
	require.NoError(t, f.Resync())
	require.Equal(t, []Deltas{{{Sync, o("k", 0)}}}, popAll(t, f))
	require.Equal(t, 2, tr.calls)
	require.NotNil(t, f.Transformer())

	// A refusal is returned as it is by Add and wrapped by Replace.
	require.ErrorIs(t, f.Add(o("refuse", 1)), errTransform)
	err := f.Replace([]any{o("refuse", 1)}, "")
	require.EqualError(t, err, "couldn't enqueue object: transform refused")
}

func TestDeltaFIFOKeyErrors(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
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
	// Replace stopped at the bad object: what came before it is queued, and
	// the queue did not take its initial population from it.
	require.Equal(t, []string{"a"}, f.ListKeys())
}

func TestDeltaFIFOKeyOf(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	cases := []struct {
		name string
		obj  any
		want string
	}{
		{"object", o("a", 1), "a"},
		{"tombstone", DeletedFinalStateUnknown{Key: "t", Obj: o("x", 1)}, "t"},
		{"deltas use the newest", Deltas{{Added, o("old", 1)}, {Updated, o("new", 1)}}, "new"},
		{"deltas ending in a tombstone", Deltas{tomb("t", nil)}, "t"},
	}
	for _, tc := range cases {
		got, err := f.KeyOf(tc.obj)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
	_, err := f.KeyOf(Deltas{})
	require.ErrorIs(t, err, ErrZeroLengthDeltasObject)
	var ke KeyError
	require.ErrorAs(t, err, &ke)

	// The default key function is MetaNamespaceKeyFunc.
	def := NewDeltaFIFO(nil, nil)
	got, err := def.KeyOf(ExplicitKey("ns/x"))
	require.NoError(t, err)
	require.Equal(t, "ns/x", got)
}

func TestDeltaFIFOListKeysAndGetByKey(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	require.NoError(t, f.Add(o("b", 1)))
	require.NoError(t, f.Add(o("a", 1)))
	require.NoError(t, f.Update(o("b", 2)))
	require.Equal(t, []string{"b", "a"}, f.ListKeys())
	require.Equal(t, 2, f.Len())

	got, exists, err := f.GetByKey("b")
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, Deltas{{Added, o("b", 1)}, {Updated, o("b", 2)}}, got)
	// The result is a copy.
	got.(Deltas)[0].Object = o("changed", 0)
	again, _, _ := f.GetByKey("b")
	require.Equal(t, o("b", 1), again.(Deltas)[0].Object)

	_, exists, err = f.GetByKey("zzz")
	require.NoError(t, err)
	require.False(t, exists)
}
