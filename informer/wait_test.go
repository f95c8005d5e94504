package informer

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type testChecker struct {
	name string
	ch   chan struct{}
}

func (c *testChecker) Name() string          { return c.name }
func (c *testChecker) Done() <-chan struct{} { return c.ch }

func newTestChecker(name string) *testChecker {
	return &testChecker{name: name, ch: make(chan struct{})}
}

func TestWaitForCacheSyncPolls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		start := time.Now()
		synced := func() bool { return calls.Add(1) >= 3 }
		require.True(t, WaitForCacheSync(make(chan struct{}), synced))
		// Checked at once, then every 100 ms.
		assert.Equal(t, int32(3), calls.Load())
		assert.Equal(t, 200*time.Millisecond, time.Since(start))
	})
}

func TestWaitForCacheSyncStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stop := make(chan struct{})
		time.AfterFunc(time.Second, func() { close(stop) })
		assert.False(t, WaitForCacheSync(stop, func() bool { return false }))
		assert.False(t, WaitForNamedCacheSync("ctrl", stop, func() bool { return false }))
	})
}

func TestWaitForNamedCacheSyncWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		assert.True(t, WaitForNamedCacheSyncWithContext(t.Context(), func() bool { return true }))
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		assert.False(t, WaitForNamedCacheSyncWithContext(ctx, func() bool { return false }))
	})
}

func TestWaitFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := newTestChecker("a"), newTestChecker("b")
		time.AfterFunc(time.Second, func() { close(a.ch) })
		time.AfterFunc(2*time.Second, func() { close(b.ch) })
		start := time.Now()
		assert.True(t, WaitFor(t.Context(), "caches", a, b))
		assert.Equal(t, 2*time.Second, time.Since(start), "WaitFor returns as soon as the last checker is done")
		assert.True(t, IsDone(a))
	})
}

func TestWaitForTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := newTestChecker("a"), newTestChecker("b")
		close(a.ch)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		assert.False(t, WaitFor(ctx, "caches", a, b))
		assert.False(t, IsDone(b))
		assert.True(t, WaitFor(ctx, "", a), "a done checker counts as done even after ctx ended")
	})
}

func TestSyncResultAsError(t *testing.T) {
	assert.NoError(t, SyncResult{}.AsError())
	cause := errors.New("stopped")
	err := SyncResult{Err: cause, Synced: map[reflect.Type]bool{
		reflect.TypeOf(0): false, reflect.TypeOf(""): true, reflect.TypeOf(1.0): false,
	}}.AsError()
	require.ErrorIs(t, err, cause)
	assert.Equal(t, "failed to sync all caches: float64, int: stopped", err.Error())
}
