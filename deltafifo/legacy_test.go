package deltafifo

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrRequeueError checks ErrRequeue's text with and without Err.
func TestErrRequeueError(t *testing.T) {
	require.Equal(t, "the popped item should be requeued without returning an error", ErrRequeue{}.Error())
	require.Equal(t, "boom", ErrRequeue{Err: errors.New("boom")}.Error())
}

// TestDeltaFIFOPopRequeue checks client-go's v0.32 contract: a process
// function returning ErrRequeue puts the Deltas back at the end of the
// queue (unless the key was queued again meanwhile), and Pop returns the
// ErrRequeue's Err.
func TestDeltaFIFOPopRequeue(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		err      error
		wantErr  error
		wantKeys []string
	}{
		{"nil Err", ErrRequeue{}, nil, []string{"b", "a"}},
		{"with Err", ErrRequeue{Err: boom}, boom, []string{"b", "a"}},
		{"plain error drops", boom, boom, []string{"b"}},
		{"success drops", nil, nil, []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
			require.NoError(t, f.Add(o("a", 1)))
			require.NoError(t, f.Add(o("b", 1)))
			item, err := f.Pop(func(any, bool) error { return tt.err })
			require.Equal(t, tt.wantErr, err)
			require.Equal(t, Deltas{{Added, o("a", 1)}}, item)
			require.Equal(t, tt.wantKeys, f.ListKeys())
		})
	}
}

// TestDeltaFIFOPopRequeueQueuedMeanwhile checks that a requeue does not
// overwrite what the process function's caller queued for the key (the
// process function runs under the lock, so only AddIfNotPresent's rule is
// visible: the popped Deltas go back only if the key is absent).
func TestDeltaFIFOPopRequeueQueuedMeanwhile(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	require.NoError(t, f.Add(o("a", 1)))
	item, err := f.Pop(func(any, bool) error { return ErrRequeue{} })
	require.NoError(t, err)
	require.NoError(t, f.AddIfNotPresent(item))
	got, exists, err := f.GetByKey("a")
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, Deltas{{Added, o("a", 1)}}, got)
}

// TestDeltaFIFOStoreMethods checks the Store-style methods client-go's
// DeltaFIFO had up to v0.32: Get, List and AddIfNotPresent.
func TestDeltaFIFOStoreMethods(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	require.NoError(t, f.Add(o("a", 1)))
	require.NoError(t, f.Update(o("a", 2)))
	require.NoError(t, f.Add(o("b", 1)))

	require.Equal(t, []any{o("a", 2), o("b", 1)}, f.List())
	got, exists, err := f.Get(o("a", 0))
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, Deltas{{Added, o("a", 1)}, {Updated, o("a", 2)}}, got)
	_, exists, err = f.Get(o("zz", 0))
	require.NoError(t, err)
	require.False(t, exists)
	_, _, err = f.Get(tobj{})
	require.ErrorAs(t, err, &KeyError{})

	// AddIfNotPresent takes Deltas, keeps a queued key's Deltas, and
	// queues an absent key at the end.
	require.ErrorContains(t, f.AddIfNotPresent(o("c", 1)), "object must be of type deltas")
	require.NoError(t, f.AddIfNotPresent(Deltas{{Sync, o("a", 9)}}))
	require.NoError(t, f.AddIfNotPresent(Deltas{{Sync, o("c", 1)}}))
	require.Equal(t, []string{"a", "b", "c"}, f.ListKeys())
	got, _, _ = f.GetByKey("a")
	require.Equal(t, Deltas{{Added, o("a", 1)}, {Updated, o("a", 2)}}, got)
	require.Error(t, f.AddIfNotPresent(Deltas{}))
}

// TestDeltaFIFOAddIfNotPresentSyncs checks that AddIfNotPresent before any
// Replace counts as the first write for HasSynced, as Add does.
func TestDeltaFIFOAddIfNotPresentSyncs(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	require.False(t, f.HasSynced())
	require.NoError(t, f.AddIfNotPresent(Deltas{{Added, o("a", 1)}}))
	require.True(t, f.HasSynced())
}

// TestFIFORequeueAndStoreMethods checks FIFO's legacy surface:
// ErrRequeue in Pop, AddIfNotPresent, Get, GetByKey, List and ListKeys.
func TestFIFORequeueAndStoreMethods(t *testing.T) {
	boom := errors.New("boom")
	f := NewFIFO(tkey)
	require.NoError(t, f.Add(o("a", 1)))
	require.NoError(t, f.Add(o("b", 1)))
	item, err := f.Pop(func(any, bool) error { return ErrRequeue{Err: boom} })
	require.Equal(t, boom, err)
	require.Equal(t, o("a", 1), item)
	require.ElementsMatch(t, []string{"a", "b"}, f.ListKeys())
	require.ElementsMatch(t, []any{o("a", 1), o("b", 1)}, f.List())

	require.NoError(t, f.AddIfNotPresent(o("b", 2)))
	got, exists, err := f.Get(o("b", 0))
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, o("b", 1), got)
	_, _, err = f.Get(tobj{})
	require.ErrorAs(t, err, &KeyError{})
	require.ErrorAs(t, f.AddIfNotPresent(tobj{}), &KeyError{})

	// b is popped before the requeued a.
	item, err = f.Pop(func(any, bool) error { return nil })
	require.NoError(t, err)
	require.Equal(t, o("b", 1), item)
	_, exists, _ = f.GetByKey("b")
	require.False(t, exists)
}
