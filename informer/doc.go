// Package informer is a drop-in for k8s.io/client-go/tools/cache v0.37.2:
// the shared informer, its store and indexer, the reflector and
// ListerWatcher, the controller, event handlers, listers and wait helpers,
// with the same names, signatures and default behaviour. Replacing the
// import
//
//	"k8s.io/client-go/tools/cache"
//
// with
//
//	cache "github.com/kfanout/fanout/informer"
//
// keeps a controller compiling and behaving the same. The queues live in
// package deltafifo and are re-exported here with type aliases, so one
// import is enough.
//
// This package is the standalone drop-in: its named types are its own, not
// client-go's. Code that also uses client-go's factories, listers or
// helpers is better served by github.com/kfanout/fanout/contrib/clientgo/cache,
// which keeps client-go's types and returns fanout informers.
//
// # Tombstones
//
// A deletion noticed only by a relist reaches this package's handlers as
// this package's DeletedFinalStateUnknown, not client-go's. Every function
// here that takes a deleted object (the key functions, ObjectToName, the
// queues, the typed handlers) also accepts client-go's tombstone (see
// AsDeletedFinalStateUnknown), but client-go's functions, such as
// cache.DeletionHandlingMetaNamespaceKeyFunc, do not accept this one: a
// handler of this package must not pass its deleted objects to code still
// on client-go's tools/cache.
//
// # Defaults
//
// The defaults are client-go's (v0.35 to v0.37): the informer is fed in
// order by RealFIFO, with batch pops, atomic Replace and Resync, and
// processing without the queue lock, as client-go v0.37.2 has them; the
// reflector streams its initial list (watch-list), and lists instead when
// the ListerWatcher has no watch-list semantics or the server refuses the
// request. SharedIndexInformerOptions.InOrder set to false, or
// KUBE_FEATURE_InOrderInformers=false, gives the DeltaFIFO;
// KUBE_FEATURE_WatchListClient=false gives list+watch. [SeedPreset] gives
// the shape of fanout's first release: the DeltaFIFO feeding classic
// listeners. docs/defaults.md in the repository compares every default
// with each client-go release.
//
// # Differences from client-go
//
//   - An index function error never panics. The write that needs it is
//     refused and returned, and the store keeps its previous state; see
//     Indexer.
//   - List functions and listers return an error, instead of panicking,
//     on objects without metadata or of an unexpected type.
//   - NewLister returns a typed lister, so controllers need no generated
//     listers: client-go's generated listers name client-go's own Indexer
//     type and cannot take this package's.
package informer
