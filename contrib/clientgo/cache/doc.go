// Package cache is k8s.io/client-go/tools/cache with fanout's informers:
// the type-identical drop-in for code that already uses client-go.
//
// It exports every identifier that client-go's tools/cache exports in all
// supported releases (v0.35, v0.36 and v0.37), as client-go's own: its types
// are aliases of client-go's, its constants and variables are client-go's
// values and its functions call client-go's. A value made here is the
// client-go value, so it crosses freely into factories, listers, helpers and
// any other library that takes client-go's types, and back.
//
// The informer constructors are the exception: NewSharedIndexInformer,
// NewSharedIndexInformerWithOptions, NewSharedInformer, NewInformer,
// NewInformerWithOptions, NewIndexerInformer, NewTransformingInformer and
// NewTransformingIndexerInformer build fanout informers and controllers,
// seen through client-go's interfaces (the adapters of
// github.com/kfanout/fanout/contrib/clientgo). Their handlers receive
// client-go's tombstone, [DeletedFinalStateUnknown] (client-go's type), on a
// deletion noticed only at a relist, so client-go's key functions and
// every helper that tests for client-go's tombstone work on it.
//
// fanout's own handler options (overflow policies, keyed workers, panic
// recovery, per-handler stats) are reached through
// [AddEventHandlerWithFanoutOptions], or through clientgo.FanoutInformer,
// which returns the fanout informer behind a SharedIndexInformer.
//
// Low-level building blocks keep client-go's implementation: New (a
// controller over a client-go Config and Queue), the reflectors, the queues
// (DeltaFIFO, RealFIFO, FIFO), the stores and indexers made directly
// (NewStore, NewIndexer, NewThreadSafeStore), the expiration and mutation
// caches.
//
// zz_generated.go is written by internal/gen from the identifier list in
// internal/gen/testdata; run `go generate` after a client-go upgrade.
package cache

//go:generate go run ./internal/gen
