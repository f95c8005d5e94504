package sharding

import (
	"errors"
	"slices"

	"github.com/kfanout/fanout/informer"
)

// errReadOnly is returned by the merged indexer's writes: the range
// informers own their stores.
var errReadOnly = errors.New("sharding: the sharded informer's store is read-only")

// mergedIndexer is the read-only union of the owned (and draining) ranges'
// indexers. A
// key lies in at most one range, so the union has no duplicates. Each call
// reads the set of owned ranges once: a range lost meanwhile may still be
// read by that call.
type mergedIndexer struct{ s *ShardedInformer }

var _ informer.Indexer = mergedIndexer{}

func (m mergedIndexer) Add(interface{}) error               { return errReadOnly }
func (m mergedIndexer) Update(interface{}) error            { return errReadOnly }
func (m mergedIndexer) Delete(interface{}) error            { return errReadOnly }
func (m mergedIndexer) Replace([]interface{}, string) error { return errReadOnly }
func (m mergedIndexer) Resync() error                       { return nil }

// Bookmark does nothing: each range's store takes its own.
func (m mergedIndexer) Bookmark(string) {}

// LastStoreSyncResourceVersion is "": each range has its own.
func (m mergedIndexer) LastStoreSyncResourceVersion() string { return "" }

func (m mergedIndexer) List() []interface{} {
	var out []interface{}
	for _, ri := range m.s.servedRanges() {
		out = append(out, ri.inf.GetIndexer().List()...)
	}
	return out
}

func (m mergedIndexer) ListKeys() []string {
	var out []string
	for _, ri := range m.s.servedRanges() {
		out = append(out, ri.inf.GetIndexer().ListKeys()...)
	}
	return out
}

func (m mergedIndexer) Get(obj interface{}) (interface{}, bool, error) {
	key, err := informer.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, false, err
	}
	return m.GetByKey(key)
}

func (m mergedIndexer) GetByKey(key string) (interface{}, bool, error) {
	for _, ri := range m.s.servedRanges() {
		item, ok, err := ri.inf.GetIndexer().GetByKey(key)
		if err != nil || ok {
			return item, ok, err
		}
	}
	return nil, false, nil
}

func (m mergedIndexer) Index(indexName string, obj interface{}) ([]interface{}, error) {
	return m.collect(func(ix informer.Indexer) ([]interface{}, error) { return ix.Index(indexName, obj) })
}

func (m mergedIndexer) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	return m.collect(func(ix informer.Indexer) ([]interface{}, error) { return ix.ByIndex(indexName, indexedValue) })
}

func (m mergedIndexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	var out []string
	for _, ri := range m.s.servedRanges() {
		keys, err := ri.inf.GetIndexer().IndexKeys(indexName, indexedValue)
		if err != nil {
			return nil, err
		}
		out = append(out, keys...)
	}
	return out, nil
}

func (m mergedIndexer) ListIndexFuncValues(indexName string) []string {
	var out []string
	for _, ri := range m.s.servedRanges() {
		out = append(out, ri.inf.GetIndexer().ListIndexFuncValues(indexName)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (m mergedIndexer) GetIndexers() informer.Indexers {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	out := informer.Indexers{}
	for k, v := range m.s.indexers {
		out[k] = v
	}
	return out
}

func (m mergedIndexer) AddIndexers(indexers informer.Indexers) error {
	return m.s.AddIndexers(indexers)
}

// collect concatenates f over the owned ranges' indexers.
func (m mergedIndexer) collect(f func(informer.Indexer) ([]interface{}, error)) ([]interface{}, error) {
	var out []interface{}
	for _, ri := range m.s.servedRanges() {
		items, err := f(ri.inf.GetIndexer())
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}
