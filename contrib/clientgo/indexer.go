package clientgo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// Indexer returns idx seen through client-go's cache.Indexer interface, so
// client-go's generated listers (corev1listers.NewPodLister), listers.New
// and the dynamic and metadata listers work on a fanout cache. It returns
// nil for a nil idx.
func Indexer(idx informer.Indexer) cache.Indexer {
	if idx == nil {
		return nil
	}
	return indexer{idx}
}

// FromClientGoIndexers converts client-go index functions to fanout's. It
// returns nil for nil.
func FromClientGoIndexers(indexers cache.Indexers) informer.Indexers {
	if indexers == nil {
		return nil
	}
	out := make(informer.Indexers, len(indexers))
	for name, fn := range indexers {
		if fn == nil {
			out[name] = nil
			continue
		}
		out[name] = informer.IndexFunc(fn)
	}
	return out
}

// ToClientGoIndexers converts fanout index functions to client-go's. It
// returns nil for nil.
func ToClientGoIndexers(indexers informer.Indexers) cache.Indexers {
	if indexers == nil {
		return nil
	}
	out := make(cache.Indexers, len(indexers))
	for name, fn := range indexers {
		if fn == nil {
			out[name] = nil
			continue
		}
		out[name] = cache.IndexFunc(fn)
	}
	return out
}

// indexer adapts a fanout Indexer: its Store methods already match, and
// only the two methods that name Indexers are converted.
type indexer struct {
	informer.Indexer
}

var _ cache.Indexer = indexer{}

// GetIndexers returns the index functions.
func (i indexer) GetIndexers() cache.Indexers { return ToClientGoIndexers(i.Indexer.GetIndexers()) }

// AddIndexers adds index functions.
func (i indexer) AddIndexers(newIndexers cache.Indexers) error {
	return i.Indexer.AddIndexers(FromClientGoIndexers(newIndexers))
}

// Unwrap returns the fanout indexer.
func (i indexer) Unwrap() informer.Indexer { return i.Indexer }
