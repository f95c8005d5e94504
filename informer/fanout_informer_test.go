package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/internal/fakelw"
)

// TestFanoutInformerAssertion: the additions are reached by a type
// assertion from the client-go-shaped interfaces, also through a typed
// informer, and a typed informer over a foreign SharedIndexInformer does
// not claim them.
func TestFanoutInformerAssertion(t *testing.T) {
	inf := NewSharedIndexInformer(fakelw.New(&corev1.Pod{}), &corev1.Pod{}, 0, nil)
	fi, ok := inf.(FanoutInformer)
	require.True(t, ok)
	assert.Equal(t, SyncNotStarted, fi.SyncStatus().State)

	typed := NewTypedSharedIndexInformer[*corev1.Pod](inf)
	tfi, ok := typed.(FanoutInformer)
	require.True(t, ok, "a typed informer over a fanout informer is one too")
	assert.Equal(t, SyncNotStarted, tfi.SyncStatus().State)
	assert.ErrorIs(t, tfi.WaitForResourceVersion(t.Context(), "x"), ErrInvalidResourceVersion)

	foreign := NewTypedSharedIndexInformer[*corev1.Pod](struct{ SharedIndexInformer }{inf})
	_, ok = foreign.(FanoutInformer)
	assert.False(t, ok, "a typed informer over another implementation has no additions")
}
