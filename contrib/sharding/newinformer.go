package sharding

import (
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

// NewInformerFunc returns a constructor with the signature of
// controller-runtime's cache.Options.NewInformer (and of client-go's
// cache.NewSharedIndexInformer) whose informers are sharded: each call
// builds a ShardedInformer over the given ListerWatcher with opts, seen
// through client-go's cache.SharedIndexInformer (clientgo.Wrap), so a
// manager's cache, its listers and its controllers see only the objects
// of the ranges this replica owns:
//
//	cache.Options{NewInformer: sharding.NewInformerFunc(sharding.Options{Ring: &ring})}
//
// Each informer gets opts.Informer with the call's resync period in place
// of its own and the call's index functions added to its own. Every
// informer takes part in a ring of its own, named RingFor(opts.Ring.Ring,
// exampleObject), so each kind has its own membership and claim Leases; as
// rendezvous assignment depends only on the members and the range,
// replicas with the same members own the same ranges of every kind.
// opts.Ring must be set (Run logs an error and returns otherwise).
func NewInformerFunc(opts Options) func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer {
	return func(lw toolscache.ListerWatcher, exampleObject runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
		return clientgo.Wrap(newTypeInformer(lw, exampleObject, resync, clientgo.FromClientGoIndexers(indexers), opts))
	}
}

// newTypeInformer is one informer of NewInformerFunc or WithSharding: opts
// with the call's resync period, its index functions added and the ring
// named after the object's type.
func newTypeInformer(lw informer.ListerWatcher, exampleObject runtime.Object, resync time.Duration, indexers informer.Indexers, opts Options) *ShardedInformer {
	o := opts
	o.Informer.ResyncPeriod = resync
	if len(indexers) > 0 {
		all := maps.Clone(opts.Informer.Indexers)
		if all == nil {
			all = informer.Indexers{}
		}
		maps.Copy(all, indexers)
		o.Informer.Indexers = all
	}
	if opts.Ring != nil {
		ring := *opts.Ring
		ring.Ring = RingFor(ring.Ring, exampleObject)
		o.Ring = &ring
	}
	return NewShardedInformer(lw, exampleObject, o)
}

// RingFor is the ring name NewInformerFunc gives the informer of
// exampleObject's type: base, the kind in lower case and eight hex digits
// of an FNV-1a hash of the type's identity (its Go package path and type
// name, and its group, version and kind when the object carries them, as
// unstructured and metadata-only objects do), for example
// "ctrl-configmap-1a2b3c4d". The same type gives the same name in every
// replica; two kinds of one name in different groups, and the typed,
// unstructured and metadata-only informers of one kind, get different
// names. Each ring has its own Leases: a replica holds one member Lease
// per kind, and the replicas together one claim Lease per range and kind.
func RingFor(base string, exampleObject runtime.Object) string {
	kind, identity := typeIdentity(exampleObject)
	h := fnv.New32a()
	h.Write([]byte(identity))
	return fmt.Sprintf("%s-%s-%08x", base, strings.ToLower(kind), h.Sum32())
}

// typeIdentity returns exampleObject's kind and a string that names its
// type uniquely.
func typeIdentity(exampleObject runtime.Object) (kind, identity string) {
	if exampleObject == nil {
		return "object", "<nil>"
	}
	t := reflect.TypeOf(exampleObject)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	goType := t.PkgPath() + "." + t.Name()
	if gvk := exampleObject.GetObjectKind().GroupVersionKind(); gvk.Kind != "" {
		// The Go type too: controller-runtime keeps typed, unstructured
		// and metadata-only informers of one kind apart, and so must
		// their rings (one identity in two rings of one name would
		// contend for its own Leases).
		return gvk.Kind, gvk.String() + " as " + goType
	}
	return t.Name(), goType
}
