package sharding

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
	"github.com/kfanout/fanout/informer"
)

// A range's watch that is stopped while an event waits to be received (the
// reflector stopped reading, then called Stop) ends its goroutine: the
// synctest bubble fails if a goroutine is left blocked.
func TestRangeWatchStopWithEventWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := watch.NewFakeWithChanSize(1, false)
		inner := &informer.ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return &corev1.ConfigMapList{}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fake, nil },
		}
		rs, _ := ring.Ranges(1)
		s := NewShardedInformer(inner, &corev1.ConfigMap{}, Options{})
		lw := newRangeListerWatcher(inner, rs[0], KeyUID, s)
		w, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		fake.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", UID: "u"}})
		synctest.Wait() // the event waits to be received
		w.Stop()
		synctest.Wait()
		_, open := <-w.ResultChan()
		require.False(t, open, "the result channel is closed after Stop")
	})
}
