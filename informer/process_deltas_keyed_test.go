package informer

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
)

// keyedCase is a store state and a batch or Deltas applied to it.
type keyedCase struct {
	name    string
	stored  []any
	indexed bool // the store has labelIndexFunc as index "tier"
	deltas  []Delta
}

var keyedCases = []keyedCase{{
	name:   "adds, updates, deletes, a sync and a tombstone",
	stored: []any{storePod("ns", "b", "1", nil), storePod("ns", "c", "1", nil), storePod("ns", "e", "1", nil)},
	deltas: []Delta{
		{Type: Added, Object: storePod("ns", "a", "2", nil)},
		{Type: Updated, Object: storePod("ns", "b", "2", nil)},
		{Type: Deleted, Object: storePod("ns", "c", "2", nil)},
		{Type: Sync, Object: storePod("ns", "e", "1", nil)},
		{Type: Deleted, Object: DeletedFinalStateUnknown{Key: "ns/gone", Obj: storePod("ns", "gone", "1", nil)}},
		{Type: Replaced, Object: storePod("other", "a", "3", nil)},
	},
}, {
	name:    "writes the index refuses are skipped and reported",
	stored:  []any{storePod("ns", "b", "1", map[string]string{"tier": "x"})},
	indexed: true,
	deltas: []Delta{
		{Type: Added, Object: storePod("ns", "a", "2", map[string]string{"tier": "y"})},
		{Type: Updated, Object: storePod("ns", "b", "2", map[string]string{"fail": ""})},
		{Type: Added, Object: storePod("ns", "c", "3", map[string]string{"fail": ""})},
		{Type: Deleted, Object: storePod("ns", "b", "4", nil)},
	},
}}

// keyedStore builds the store of tc.
func keyedStore(t *testing.T, tc keyedCase) Indexer {
	indexers := Indexers{}
	if tc.indexed {
		indexers["tier"] = labelIndexFunc
	}
	store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, indexers)
	for _, obj := range tc.stored {
		require.NoError(t, store.Add(obj))
	}
	return store
}

// storeState is what a test compares of two stores.
type storeState struct {
	keys []string
	rv   string
	tier []string
}

func stateOf(t *testing.T, s Indexer) storeState {
	st := storeState{keys: storeSorted(s.ListKeys()), rv: s.(*cache).storage.rv}
	if _, ok := s.GetIndexers()["tier"]; ok {
		st.tier = storeSorted(s.ListIndexFuncValues("tier"))
	}
	return st
}

// The keyed batch path calls the same handlers in the same order, returns
// the same error and leaves the store as client-go's Get-then-Transaction
// batch path (a batch without keys) does.
func TestProcessKeyedBatchMatchesTransactionPath(t *testing.T) {
	for _, tc := range keyedCases {
		t.Run(tc.name, func(t *testing.T) {
			keys := make([]string, len(tc.deltas))
			for i, d := range tc.deltas {
				k, err := DeletionHandlingMetaNamespaceKeyFunc(d.Object)
				require.NoError(t, err)
				keys[i] = k
			}
			plainStore, keyedStoreV := keyedStore(t, tc), keyedStore(t, tc)
			var plain, keyed siRecorder
			wantErr := process(klog.Background(), &plain, plainStore, popped{Deltas: tc.deltas, Batch: true}, nil)
			var scratch []batchResult
			gotErr := process(klog.Background(), &keyed, keyedStoreV, popped{Deltas: tc.deltas, Keys: keys, Batch: true}, &scratch)
			require.Equal(t, tc.indexed, wantErr != nil, "the case with index failures must fail, the other not")
			require.Equal(t, plain.take(), keyed.take())
			if wantErr == nil {
				require.NoError(t, gotErr)
			} else {
				require.EqualError(t, gotErr, wantErr.Error())
			}
			require.Equal(t, stateOf(t, plainStore), stateOf(t, keyedStoreV))
			for i := range scratch {
				require.Zero(t, scratch[i], "scratch keeps a result")
			}
		})
	}
}

// process given the key does what it does without it.
func TestProcessKeyedDeltasMatchesProcessDeltas(t *testing.T) {
	for _, tc := range keyedCases {
		t.Run(tc.name, func(t *testing.T) {
			plainStore, keyedStoreV := keyedStore(t, tc), keyedStore(t, tc)
			var plain, keyed siRecorder
			for _, d := range tc.deltas {
				key, err := DeletionHandlingMetaNamespaceKeyFunc(d.Object)
				require.NoError(t, err)
				wantErr := process(klog.Background(), &plain, plainStore, popped{Deltas: Deltas{d}, IsInInitialList: true}, nil)
				gotErr := process(klog.Background(), &keyed, keyedStoreV, popped{Deltas: []Delta{d}, Keys: []string{key}, IsInInitialList: true}, nil)
				require.Equal(t, wantErr, gotErr)
			}
			require.Equal(t, plain.take(), keyed.take())
			require.Equal(t, stateOf(t, plainStore), stateOf(t, keyedStoreV))
		})
	}
}

// A relist into the shared informer's empty store (the fast path) calls
// the same handlers and fails the same way as the general path.
func TestProcessReplacedAllIntoEmptyStore(t *testing.T) {
	lists := map[string][]any{
		"objects": {storePod("ns", "a", "1", nil), storePod("ns", "b", "1", nil), storePod("other", "a", "1", nil)},
		"no key":  {storePod("ns", "a", "1", nil), "not an object", storePod("ns", "b", "1", nil)},
	}
	for name, list := range lists {
		t.Run(name, func(t *testing.T) {
			fast := newInformerIndexer(SharedIndexInformerOptions{})
			general := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{})
			var fastRec, generalRec siRecorder
			info := ReplacedAllInfo{ResourceVersion: "7", Objects: list}
			wantErr := processReplacedAll(klog.Background(), &generalRec, general, info, true)
			gotErr := processReplacedAll(klog.Background(), &fastRec, fast, info, true)
			require.Equal(t, wantErr, gotErr)
			require.Equal(t, name == "no key", gotErr != nil)
			require.Equal(t, generalRec.take(), fastRec.take())
			require.Equal(t, storeSorted(general.ListKeys()), storeSorted(fast.ListKeys()))
			require.Equal(t, general.(*cache).storage.rv, fast.(*cache).storage.rv)
		})
	}
}
