package deltafifo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeltaFIFOTryLen checks that tryLen counts keys and does not wait while
// Pop's process holds the queue's lock.
func TestDeltaFIFOTryLen(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: tkey})
	require.NoError(t, f.Add(o("a", 1)))
	require.NoError(t, f.Update(o("a", 2)))
	require.NoError(t, f.Add(o("b", 1)))
	n, ok := f.tryLen()
	assert.True(t, ok)
	assert.Equal(t, 2, n)
	_, err := f.Pop(func(any, bool) error {
		n, ok := f.tryLen()
		assert.False(t, ok, "the lock is held by Pop")
		assert.Equal(t, 0, n)
		return nil
	})
	require.NoError(t, err)
	n, ok = f.tryLen()
	assert.True(t, ok)
	assert.Equal(t, 1, n)
}

// TestRealFIFOTryLen checks that tryLen counts items, one per delta.
func TestRealFIFOTryLen(t *testing.T) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: tkey, KnownObjects: knownOf()})
	require.NoError(t, f.Add(o("a", 1)))
	require.NoError(t, f.Update(o("a", 2)))
	n, ok := f.tryLen()
	assert.True(t, ok)
	assert.Equal(t, 2, n)
}
