package informer

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/internal/fakelw"
)

// TestPopHelper checks Pop(queue): it returns the popped item, and nil
// once the queue is closed and empty.
func TestPopHelper(t *testing.T) {
	f := NewFIFO(MetaNamespaceKeyFunc)
	pod := storePod("ns", "a", "1", nil)
	require.NoError(t, f.Add(pod))
	require.Same(t, pod, Pop(f))
	f.Close()
	require.Nil(t, Pop(f))
}

// TestFIFOStoreResourceVersion checks the Store methods a FIFO has for
// client-go v0.32 code: the resource version of Replace and Bookmark.
func TestFIFOStoreResourceVersion(t *testing.T) {
	var s Store = NewFIFO(MetaNamespaceKeyFunc)
	require.Empty(t, s.LastStoreSyncResourceVersion())
	require.NoError(t, s.Replace(nil, "7"))
	require.Equal(t, "7", s.LastStoreSyncResourceVersion())
	s.Bookmark("9")
	require.Equal(t, "9", s.LastStoreSyncResourceVersion())
}

// TestNewNamespaceKeyedIndexerAndReflector checks that the indexer is keyed
// by namespace/name, has the namespace index, and is the reflector's store.
func TestNewNamespaceKeyedIndexerAndReflector(t *testing.T) {
	lw := &ListWatch{}
	indexer, r := NewNamespaceKeyedIndexerAndReflector(lw, &corev1.Pod{}, 0)
	require.NotNil(t, r)
	require.Contains(t, indexer.GetIndexers(), NamespaceIndex)
	require.NoError(t, indexer.Add(storePod("ns", "a", "1", nil)))
	keys, err := indexer.IndexKeys(NamespaceIndex, "ns")
	require.NoError(t, err)
	require.Equal(t, []string{"ns/a"}, keys)
	require.Same(t, indexer, r.store)
}

// TestReflectorUseWatchListField checks the legacy field: the constructors
// set it from the gate (on by default, as in client-go v0.35+), off for a
// ListerWatcher that says it has no watch-list semantics, and it can be
// overridden.
func TestReflectorUseWatchListField(t *testing.T) {
	r := NewReflector(&ListWatch{}, &corev1.Pod{}, NewStore(MetaNamespaceKeyFunc), 0)
	require.NotNil(t, r.UseWatchList)
	require.True(t, *r.UseWatchList)
	off := false
	r.UseWatchList = &off
	require.False(t, *r.UseWatchList)

	r = NewReflector(fakelw.New(&corev1.Pod{}), &corev1.Pod{}, NewStore(MetaNamespaceKeyFunc), 0)
	require.False(t, *r.UseWatchList, "a ListerWatcher without watch-list semantics lists")

	listAndWatchOnly(t)
	r = NewReflector(&ListWatch{}, &corev1.Pod{}, NewStore(MetaNamespaceKeyFunc), 0)
	require.False(t, *r.UseWatchList, "WatchListClient off")
}

// TestUndeltaStorePushes checks that every successful write pushes the
// whole content and a failed one pushes nothing.
func TestUndeltaStorePushes(t *testing.T) {
	var pushes [][]string
	u := NewUndeltaStore(func(objs []any) { pushes = append(pushes, storeSorted(podKeys(objs))) }, MetaNamespaceKeyFunc)
	require.NoError(t, u.Add(storePod("ns", "a", "1", nil)))
	require.NoError(t, u.Update(storePod("ns", "a", "2", nil)))
	require.Error(t, u.Add("not an object"))
	require.NoError(t, u.Replace([]any{storePod("ns", "b", "3", nil)}, "3"))
	require.NoError(t, u.Delete(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}}))
	require.Equal(t, [][]string{{"ns/a"}, {"ns/a"}, {"ns/b"}, {}}, pushes)
}

// TestConfigRetryOnError checks client-go v0.32's RetryOnError: an item
// whose Process fails is queued again and processed again; without it the
// item is dropped.
func TestConfigRetryOnError(t *testing.T) {
	for _, retry := range []bool{false, true} {
		t.Run(fmt.Sprint("retry=", retry), func(t *testing.T) {
			listAndWatchOnly(t) // the fake watch sends no initial-events bookmark
			synctest.Test(t, func(t *testing.T) {
				lw := &ListWatch{
					ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
						return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{*storePod("ns", "a", "1", nil)}}, nil
					},
					WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
				}
				var calls atomic.Int32
				c := New(&Config{
					Queue:         NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: MetaNamespaceKeyFunc}),
					ListerWatcher: lw,
					ObjectType:    &corev1.Pod{},
					RetryOnError:  retry,
					Process: func(any, bool) error {
						if calls.Add(1) == 1 {
							return errors.New("first call fails")
						}
						return nil
					},
				})
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan struct{})
				go func() { defer close(done); c.RunWithContext(ctx) }()
				synctest.Wait()
				want := int32(1)
				if retry {
					want = 2
				}
				require.Equal(t, want, calls.Load())
				cancel()
				<-done
			})
		})
	}
}
