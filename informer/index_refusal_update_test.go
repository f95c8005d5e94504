package informer

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
)

// An update the index function refuses, popped from the DeltaFIFO in one
// Deltas with later changes of the same object, drops only itself: a
// Delete behind it deletes the object and is delivered, and a valid update
// behind it is stored and delivered. It runs the informer's DeltaFIFO
// path (the keyed pop into process), with the queue's key used for
// the store and without.
func TestIndexRefusalInDeltasWithLaterChanges(t *testing.T) {
	for _, keyed := range []bool{true, false} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{"refuse": refuseLabelled})
			require.NoError(t, store.Add(storePod("ns", "a", "1", nil)))
			require.NoError(t, store.Add(storePod("ns", "b", "2", nil)))
			q := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: store, EmitDeltaTypeReplaced: true})
			require.NoError(t, q.Update(storePod("ns", "a", "3", map[string]string{"l": "bad"})))
			require.NoError(t, q.Delete(storePod("ns", "a", "4", nil)))
			require.NoError(t, q.Update(storePod("ns", "b", "5", map[string]string{"l": "bad"})))
			require.NoError(t, q.Update(storePod("ns", "b", "6", map[string]string{"l": "good"})))

			rec := &siRecorder{}
			var sizes []int
			for range 2 {
				require.NoError(t, keyedPop(q)(false, func(p popped) error {
					sizes = append(sizes, len(p.Deltas))
					if !keyed {
						p.Keys = nil
					}
					return process(klog.Background(), rec, store, p, nil)
				}))
			}
			require.Equal(t, []int{2, 2}, sizes, "each key's changes are popped together")
			assert.Equal(t, []string{"delete ns/a@4", "update ns/b@2 -> ns/b@6[good]"}, rec.take())
			assert.Equal(t, []string{"ns/b"}, store.ListKeys())
			b, ok, err := store.GetByKey("ns/b")
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, "6", b.(interface{ GetResourceVersion() string }).GetResourceVersion())
			indexed, err := store.ByIndex("refuse", "x")
			require.NoError(t, err)
			assert.Equal(t, []any{b}, indexed, "the index holds what the store holds")
		})
	}
}
