package informer

import "fmt"

// TransactionType says what a Transaction does.
type TransactionType string

// The transaction types.
const (
	TransactionTypeAdd    TransactionType = "Add"
	TransactionTypeUpdate TransactionType = "Update"
	TransactionTypeDelete TransactionType = "Delete"
)

// Transaction is one write of a batch: an object and what to do with it.
type Transaction struct {
	Object any
	Type   TransactionType
}

// TransactionStore applies a batch of writes under one acquisition of its
// lock, so a writer with many changes is not starved by readers.
type TransactionStore interface {
	// Transaction applies txns in order. It returns nil when every one was
	// applied; otherwise a TransactionError lists the applied ones.
	Transaction(txns ...Transaction) *TransactionError
}

// TransactionError reports the writes of a batch that were not applied.
type TransactionError struct {
	// SuccessfulIndices are the positions, in the batch, of the writes
	// that were applied, in increasing order.
	SuccessfulIndices []int
	// TotalTransactions is the size of the batch.
	TotalTransactions int
	// Errors holds one error per write that was not applied.
	Errors []error
}

var _ error = &TransactionError{}

// Error says how many writes failed, and why.
func (e *TransactionError) Error() string {
	return fmt.Sprintf("failed to execute (%d/%d) transactions failed due to: %v",
		e.TotalTransactions-len(e.SuccessfulIndices), e.TotalTransactions, e.Errors)
}

// ThreadSafeStoreWithTransaction is a ThreadSafeStore that applies batches
// of keyed writes under one lock.
type ThreadSafeStoreWithTransaction interface {
	ThreadSafeStore
	// Transaction applies txns in order under one lock and records the
	// resource version of the last object.
	Transaction(txns ...ThreadSafeStoreTransaction)
}

// ThreadSafeStoreTransaction is a Transaction together with the key of its
// object.
type ThreadSafeStoreTransaction struct {
	Transaction
	Key string
}
