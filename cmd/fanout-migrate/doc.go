// Command fanout-migrate switches a Go module from client-go's informer
// packages to fanout's in one step.
//
// Run it in the module to convert, with package patterns as for go build:
//
//	go run github.com/kfanout/fanout/cmd/fanout-migrate@latest ./...
//
// (without @latest once the module requires github.com/kfanout/fanout).
// ./... walks the directory tree below the current one, skipping vendor,
// testdata, directories whose name starts with "." or "_", and nested
// modules, as the go command does. Every .go file is read, whatever its
// build constraints.
//
// # Which target
//
// By default, a module whose packages import any client-go package other
// than tools/cache (a factory, a lister, a clientset: nearly every
// controller), or one of fanout's client-go adapters, switches to the
// type-identical package, keeping the name the file uses:
//
//	k8s.io/client-go/tools/cache              -> github.com/kfanout/fanout/contrib/clientgo/cache
//	k8s.io/client-go/informers                -> github.com/kfanout/fanout/contrib/clientgo/informers
//	k8s.io/client-go/dynamic/dynamicinformer  -> github.com/kfanout/fanout/contrib/clientgo/dynamicinformer
//	k8s.io/client-go/metadata/metadatainformer -> github.com/kfanout/fanout/contrib/clientgo/metadatainformer
//
// Its types are client-go's, so nothing else changes and nothing is
// reported. Selectors of tools/cache identifiers that not every supported
// client-go release has (NewTypedSharedIndexInformer, ShutDownEventHandler,
// ...) keep client-go's package, imported a second time as clientgocache;
// a file that uses only those keeps its import; a dot import of tools/cache
// is reported and left.
//
// A module that imports only tools/cache, or any module with -standalone,
// gets the standalone rewrite described below, to fanout's own informer
// package.
//
// # What -standalone changes
//
// Imports, keeping the name the file uses, so the code below them stays
// as it is:
//
//	k8s.io/client-go/tools/cache              -> cache "github.com/kfanout/fanout/informer"
//	k8s.io/client-go/informers                -> github.com/kfanout/fanout/contrib/clientgo/informers
//	k8s.io/client-go/dynamic/dynamicinformer  -> github.com/kfanout/fanout/contrib/clientgo/dynamicinformer
//	k8s.io/client-go/metadata/metadatainformer -> github.com/kfanout/fanout/contrib/clientgo/metadatainformer
//
// Dot and blank imports are switched the same way. Sub-packages
// (k8s.io/client-go/informers/core/v1, tools/cache/testing, the listers)
// stay: the factories return client-go's interfaces.
//
// Lister constructors: client-go's listers (k8s.io/client-go/listers and
// its generated New*Lister functions, dynamiclister.New,
// metadatalister.New) take client-go's cache.Indexer. Where the argument
// is a fanout indexer after the switch (it comes from the cache package:
// cache.NewIndexer, a cache.Indexer or cache.SharedIndexInformer variable,
// parameter or field, or GetIndexer of such an informer), the tool wraps
// it in clientgo.Indexer from github.com/kfanout/fanout/contrib/clientgo
// and adds that import. Where it comes from a factory, it is already
// client-go's and stays. Generated listers in the module itself
// (pkg/generated/listers, calling listers.New with their cache.Indexer
// parameter) are wrapped by the same rule, and generated informers need
// nothing more than the import switch. Index functions: a cache.Indexers
// value (fanout's after the switch) given to client-go's typed informer
// constructors (corev1informers.NewPodInformer), to NewFilteredDynamicInformer
// or NewFilteredMetadataInformer (client-go's or, in a module switched by
// hand, fanout's: they keep client-go's signature), or to AddIndexers of a
// factory informer is converted with clientgo.ToClientGoIndexers. Regenerating code with
// informer-gen or lister-gen undoes the switch: run the tool again after
// it.
//
// # What -standalone reports
//
// A place it cannot convert safely stays as it is and is printed on
// standard error as file:line: why. That covers a lister argument whose
// origin it cannot tell apart, a factory informer (client-go's type) that
// goes into a variable, field or parameter now of fanout's type, a
// factory's InformerFor (its function returns client-go's informer type),
// cache.NewSharedIndexInformer or cache.NewSharedInformer used as a
// function value (often handed to code that expects client-go's
// signature, such as controller-runtime's NewInformer option),
// AddEventHandlerWithOptions and SetWatchErrorHandler of a factory
// informer (they take client-go's HandlerOptions and Reflector), a
// switched dot import (fanout exports names client-go does not, which may
// collide), and imports of tools/cache under two names.
//
// Each rewritten file is named on standard output ("rewrote path"). With
// -diff, nothing is written and a unified diff of every change is printed
// on standard output instead.
//
// # go.mod
//
// The tool does not edit go.mod: after a run that changed files it prints
// the go get command that adds what the new imports need (the root module,
// and github.com/kfanout/fanout/contrib/clientgo when a file imports it or
// one of its packages), followed by go mod tidy.
//
// # Exit status
//
// 0: done, nothing reported. 1: done, and at least one place was reported
// for a change by hand (the rest is converted). 2: usage error, or a file
// that could not be read, parsed or written.
package main
