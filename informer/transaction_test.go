package informer

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

func TestTransactionAllApplied(t *testing.T) {
	idx := newTierIndexer()
	require.NoError(t, idx.Add(storePod("ns", "gone", "1", map[string]string{"tier": "old"})))
	ts := idx.(TransactionStore)
	err := ts.Transaction(
		Transaction{Object: storePod("ns", "a", "2", map[string]string{"tier": "web"}), Type: TransactionTypeAdd},
		Transaction{Object: storePod("ns", "a", "3", map[string]string{"tier": "db"}), Type: TransactionTypeUpdate},
		Transaction{Object: storePod("ns", "gone", "4", nil), Type: TransactionTypeDelete},
	)
	require.Nil(t, err)
	assert.Equal(t, []string{"ns/a"}, idx.ListKeys())
	assert.Equal(t, indexState{"db": {"ns/a"}}, indexStateOf(t, idx, "tier"))
	// The resource version comes from the last object, a deletion here.
	assert.Equal(t, "4", idx.LastStoreSyncResourceVersion())
	assert.Nil(t, ts.Transaction())
}

func TestTransactionPartialFailure(t *testing.T) {
	idx := newTierIndexer()
	ts := idx.(TransactionStore)
	txnErr := ts.Transaction(
		Transaction{Object: storePod("ns", "a", "1", nil), Type: TransactionTypeAdd},
		Transaction{Object: "no meta", Type: TransactionTypeAdd},
		Transaction{Object: storePod("ns", "b", "2", map[string]string{"tier": "web"}), Type: TransactionTypeAdd},
		Transaction{Object: storePod("ns", "c", "3", map[string]string{"fail": ""}), Type: TransactionTypeAdd},
		Transaction{Object: storePod("ns", "a", "4", nil), Type: TransactionTypeDelete},
		Transaction{Object: storePod("ns", "d", "5", map[string]string{"fail": ""}), Type: TransactionTypeUpdate},
	)
	require.NotNil(t, txnErr)
	assert.Equal(t, []int{0, 2, 4}, txnErr.SuccessfulIndices)
	assert.Equal(t, 6, txnErr.TotalTransactions)
	require.Len(t, txnErr.Errors, 3)
	var ke KeyError
	assert.ErrorAs(t, txnErr.Errors[0], &ke)
	assert.ErrorIs(t, txnErr.Errors[1], errIndexFailed)
	assert.ErrorIs(t, txnErr.Errors[2], errIndexFailed)
	assert.Contains(t, txnErr.Error(), "failed to execute (3/6) transactions failed due to:")

	assert.Equal(t, []string{"ns/b"}, idx.ListKeys())
	assert.Equal(t, indexState{"web": {"ns/b"}}, indexStateOf(t, idx, "tier"))
	// The last applied transaction sets the resource version.
	assert.Equal(t, "4", idx.LastStoreSyncResourceVersion())
}

func TestTransactionAllKeyErrors(t *testing.T) {
	s := NewStore(func(any) (string, error) { return "", errors.New("no") })
	txnErr := s.(TransactionStore).Transaction(
		Transaction{Object: 1, Type: TransactionTypeAdd},
		Transaction{Object: 2, Type: TransactionTypeAdd},
	)
	require.NotNil(t, txnErr)
	assert.Equal(t, []int{}, txnErr.SuccessfulIndices)
	assert.Len(t, txnErr.Errors, 2)
}

func TestThreadSafeStoreTransaction(t *testing.T) {
	s := NewThreadSafeStore(Indexers{}, Indices{}).(ThreadSafeStoreWithTransaction)
	s.Add("x", storePod("ns", "x", "1", nil))
	s.Transaction(
		ThreadSafeStoreTransaction{Transaction{Object: storePod("ns", "a", "40", nil), Type: TransactionTypeUpdate}, "a"},
		ThreadSafeStoreTransaction{Transaction{Object: storePod("ns", "x", "30", nil), Type: TransactionTypeDelete}, "x"},
		ThreadSafeStoreTransaction{Transaction{Object: storePod("ns", "b", "50", nil), Type: TransactionTypeAdd}, "b"},
		ThreadSafeStoreTransaction{Transaction{Object: storePod("ns", "c", "60", nil), Type: "Bogus"}, "c"},
	)
	assert.Equal(t, []string{"a", "b"}, storeSorted(s.ListKeys()))
	assert.Equal(t, "50", s.LastStoreSyncResourceVersion())
	item, _ := s.Get("a")
	assert.Equal(t, "40", item.(*corev1.Pod).ResourceVersion)
}
