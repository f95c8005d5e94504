package cache_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	k8scache "k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// tombstones builds each tombstone type a fanout queue may be given: its
// own, and client-go's, which a half-swapped module hands over.
var tombstones = map[string]func(key string, obj any) any{
	"fanout":    func(key string, obj any) any { return informer.DeletedFinalStateUnknown{Key: key, Obj: obj} },
	"client-go": func(key string, obj any) any { return k8scache.DeletedFinalStateUnknown{Key: key, Obj: obj} },
}

// onlyConfigMaps is a transform that fails on anything but a ConfigMap,
// so a tombstone given to it shows up as an error.
func onlyConfigMaps(obj any) (any, error) {
	if _, ok := obj.(*corev1.ConfigMap); !ok {
		return nil, fmt.Errorf("transform given %T", obj)
	}
	return obj, nil
}

// popDeltas pops one item of q and describes its deltas.
func popDeltas(t *testing.T, q informer.Queue) []string {
	t.Helper()
	var got []string
	_, err := q.Pop(func(obj any, _ bool) error {
		for _, d := range obj.(informer.Deltas) {
			o := d.Object
			if tomb, ok := informer.AsDeletedFinalStateUnknown(o); ok {
				o = fmt.Sprintf("tombstone(%s, %T)", tomb.Key, tomb.Obj)
			} else if cm, ok := o.(*corev1.ConfigMap); ok {
				o = "cm@" + cm.ResourceVersion
			}
			got = append(got, fmt.Sprintf("%s %v", d.Type, o))
		}
		return nil
	})
	require.NoError(t, err)
	return got
}

// Each fanout queue treats client-go's tombstone as it treats its own: not
// transformed, collapsed with a later deletion, not wrapped again by a
// relist.
func TestQueuesTreatClientGoTombstoneAsTheirOwn(t *testing.T) {
	queues := map[string]func(informer.KeyListerGetter) informer.Queue{
		"DeltaFIFO": func(known informer.KeyListerGetter) informer.Queue {
			return informer.NewDeltaFIFOWithOptions(informer.DeltaFIFOOptions{KeyFunction: informer.DeletionHandlingMetaNamespaceKeyFunc, KnownObjects: known, Transformer: onlyConfigMaps, EmitDeltaTypeReplaced: true})
		},
		"RealFIFO": func(known informer.KeyListerGetter) informer.Queue {
			return informer.NewRealFIFOWithOptions(informer.RealFIFOOptions{KeyFunction: informer.DeletionHandlingMetaNamespaceKeyFunc, KnownObjects: known, Transformer: onlyConfigMaps})
		},
	}
	for qname, newQueue := range queues {
		results := map[string][][]string{}
		for tname, tomb := range tombstones {
			t.Run(qname+"/"+tname, func(t *testing.T) {
				// A tombstone, then the object's own deletion.
				known := informer.NewStore(informer.MetaNamespaceKeyFunc)
				require.NoError(t, known.Add(configMap("a", "1")))
				q := newQueue(known)
				require.NoError(t, q.Delete(tomb("ns/a", configMap("a", "1"))), "a tombstone is not transformed")
				require.NoError(t, q.Delete(configMap("a", "2")))
				first := popDeltas(t, q)

				// A tombstone queued, then a relist without the object.
				known = informer.NewStore(informer.MetaNamespaceKeyFunc)
				require.NoError(t, known.Add(configMap("b", "1")))
				q = newQueue(known)
				require.NoError(t, q.Delete(tomb("ns/b", configMap("b", "1"))))
				require.NoError(t, q.Replace(nil, "5"))
				second := popDeltas(t, q)
				results[tname] = [][]string{first, second}
			})
		}
		require.Equal(t, results["fanout"], results["client-go"], "%s: client-go's tombstone is handled as fanout's", qname)
	}
}
