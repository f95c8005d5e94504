package informer

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kfanout/fanout/internal/fakelw"
	"github.com/kfanout/fanout/internal/syncbuf"
)

// TestHandlerLoggerDiscardSilences: a handler added with
// HandlerOptions.Logger pointing to logr.Discard() logs nothing, as in
// client-go, although a Logger without sink counts as unset further down
// (the listener would fall back to klog.Background()). Without a Logger,
// the same backlog warning goes to klog.Background(), which shows that
// the first case could fail.
func TestHandlerLoggerDiscardSilences(t *testing.T) {
	discard := logr.Discard()
	for _, tt := range []struct {
		name   string
		logger *klog.Logger
		logged bool
	}{
		{"discard", &discard, false},
		{"unset", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf syncbuf.Buffer
			klog.SetLogger(textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&buf))))
			defer klog.ClearLogger()
			synctest.Test(t, func(t *testing.T) {
				src := fakelw.New(&corev1.Pod{})
				for _, n := range []string{"a", "b", "c"} {
					src.Add(siPod(n))
				}
				inf := NewSharedIndexInformer(src, &corev1.Pod{}, 0, nil)
				release := make(chan struct{})
				_, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{
					AddFunc: func(any) { <-release },
				}, HandlerOptions{Logger: tt.logger, Name: "blocked", BacklogWarnThresholds: []int{1}})
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), logr.Discard()))
				var wg sync.WaitGroup
				wg.Go(func() { inf.RunWithContext(ctx) })
				synctest.Wait()
				close(release)
				synctest.Wait()
				cancel()
				wg.Wait()
			})
			got := buf.String()
			assert.Equal(t, tt.logged, strings.Contains(got, `handler="blocked"`), "klog.Background() got:\n%s", got)
		})
	}
}

// TestHandlerLogger checks the three cases of handlerLogger.
func TestHandlerLogger(t *testing.T) {
	assert.Equal(t, klog.Background(), handlerLogger(HandlerOptions{}))
	discard := logr.Discard()
	l := handlerLogger(HandlerOptions{Logger: &discard})
	require.NotNil(t, l.GetSink(), "a sink the listener does not replace")
	assert.False(t, l.Enabled())
	assert.False(t, l.V(0).WithName("x").WithValues("k", "v").Enabled())
	own := textlogger.NewLogger(textlogger.NewConfig())
	assert.Equal(t, own, handlerLogger(HandlerOptions{Logger: &own}))
}
