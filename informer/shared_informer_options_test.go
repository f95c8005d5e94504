package informer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/internal/fakelw"
)

// TestHandlerOptionsValidatedFirst checks that invalid handler options are
// rejected with the listener's message, and before anything changes for
// the registration: a short resync period that comes with them does not
// lower the informer's resync check period.
func TestHandlerOptionsValidatedFirst(t *testing.T) {
	for _, tc := range []struct {
		opts HandlerOptions
		want string
	}{
		{HandlerOptions{MaxPending: -1}, "invalid handler options: MaxPending must not be negative, got -1"},
		{HandlerOptions{Workers: -1}, "invalid handler options: Workers must not be negative, got -1"},
		{HandlerOptions{Overflow: 7}, "invalid handler options: unknown overflow policy"},
		{HandlerOptions{Overflow: OverflowBlock}, "invalid handler options: MaxPending must be > 0 with OverflowBlock"},
		{HandlerOptions{BacklogWarnThresholds: []int{10, 0}}, "invalid handler options: BacklogWarnThresholds must not contain 0"},
	} {
		inf := NewSharedIndexInformerWithOptions(fakelw.New(&corev1.Pod{}), &corev1.Pod{}, SharedIndexInformerOptions{ResyncPeriod: time.Hour})
		short := 2 * time.Second
		tc.opts.ResyncPeriod = &short
		_, err := inf.AddEventHandlerWithOptions(&siRecorder{}, tc.opts)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
		assert.Equal(t, time.Hour, inf.(*sharedIndexInformer).resyncCheckPeriod, "the check period changed for rejected options %+v", tc.opts)
	}
}

// TestHandlerOptionsValidate checks that Validate rejects what
// AddEventHandlerWithOptions rejects, with the same message, and accepts
// the zero options and a valid overload setting.
func TestHandlerOptionsValidate(t *testing.T) {
	for _, opts := range []HandlerOptions{
		{MaxPending: -1},
		{Workers: -1},
		{Workers: 1 << 20},
		{Overflow: 7},
		{Overflow: OverflowBlock},
		{BacklogWarnThresholds: []int{10, 0}},
	} {
		inf := NewSharedIndexInformerWithOptions(fakelw.New(&corev1.Pod{}), &corev1.Pod{}, SharedIndexInformerOptions{})
		_, addErr := inf.AddEventHandlerWithOptions(&siRecorder{}, opts)
		require.Error(t, addErr)
		require.EqualError(t, opts.Validate(), addErr.Error(), "options %+v", opts)
	}
	for _, opts := range []HandlerOptions{{}, {Overflow: OverflowCoalesce, MaxPending: 10, Workers: 4}} {
		require.NoError(t, opts.Validate(), "options %+v", opts)
	}
}
