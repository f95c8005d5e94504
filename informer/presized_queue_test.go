package informer

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
)

// Presizing never drops what a store holds, and a presized queue replaces
// like the DeltaFIFO it wraps.
func TestPresizedDeltaFIFO(t *testing.T) {
	store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{}).(*cache)
	require.NoError(t, store.Add(storePod("ns", "kept", "1", nil)))
	store.storage.reserve(5000)
	require.Equal(t, []string{"ns/kept"}, store.ListKeys())

	empty := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{}).(*cache)
	q := presizedDeltaFIFO{DeltaFIFO: NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: empty, EmitDeltaTypeReplaced: true}), store: empty}
	list := make([]any, 2*reserveAbove)
	for i := range list {
		list[i] = storePod("ns", fmt.Sprintf("p%05d", i), "1", nil)
	}
	require.NoError(t, q.Replace(list, "1"))
	require.Equal(t, len(list), q.Len())
	for range list {
		require.NoError(t, keyedPop(q)(false, func(p popped) error {
			require.True(t, p.IsInInitialList)
			return process(klog.Background(), ResourceEventHandlerFuncs{}, empty, p, nil)
		}))
	}
	require.True(t, q.HasSynced())
	require.Len(t, empty.ListKeys(), len(list))
}
