package informer

// presizedDeltaFIFO is the shared informer's DeltaFIFO. Before a Replace it
// makes room in the informer's store, if the store is empty, for the
// listed objects, which the queue then hands over one by one: the store's
// map is allocated once at its final size instead of growing (and
// rehashing) step by step through a large initial list.
type presizedDeltaFIFO struct {
	*DeltaFIFO
	store *cache
}

// Replace reserves room in the store, then replaces the queue's content.
func (q presizedDeltaFIFO) Replace(list []any, resourceVersion string) error {
	q.store.storage.reserve(len(list))
	return q.DeltaFIFO.Replace(list, resourceVersion)
}
