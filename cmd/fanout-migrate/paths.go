package main

import "strings"

// Module and package paths the tool knows.
const (
	rootModule     = "github.com/kfanout/fanout"
	clientGoModule = rootModule + "/contrib/clientgo"

	toolsCache      = "k8s.io/client-go/tools/cache"
	fanoutInformer  = rootModule + "/informer"
	clientGoListers = "k8s.io/client-go/listers"
	clientGoInf     = "k8s.io/client-go/informers"

	clientGoDynamicInf  = "k8s.io/client-go/dynamic/dynamicinformer"
	clientGoMetadataInf = "k8s.io/client-go/metadata/metadatainformer"
)

// importRewrites maps each client-go import the tool switches to fanout's.
var importRewrites = map[string]string{
	toolsCache:          fanoutInformer,
	clientGoInf:         clientGoModule + "/informers",
	clientGoDynamicInf:  clientGoModule + "/dynamicinformer",
	clientGoMetadataInf: clientGoModule + "/metadatainformer",
}

// isFactoryPath reports whether path is one of client-go's factory
// packages, before or after the switch: their factories and informers
// have client-go's interface types in both.
func isFactoryPath(path string) bool {
	switch path {
	case clientGoInf, clientGoDynamicInf, clientGoMetadataInf:
		return true
	}
	return strings.HasPrefix(path, clientGoModule+"/") && path != clientGoModule
}

// isTypedInformersPath reports whether path is one of client-go's
// generated typed informer packages (k8s.io/client-go/informers/core/v1).
func isTypedInformersPath(path string) bool {
	return strings.HasPrefix(path, clientGoInf+"/")
}

// isListerConstructor reports whether path.name is a client-go function
// whose first parameter is client-go's cache.Indexer.
func isListerConstructor(path, name string) bool {
	switch {
	case path == clientGoListers:
		return name == "New"
	case strings.HasPrefix(path, clientGoListers+"/"):
		return strings.HasPrefix(name, "New") && strings.HasSuffix(name, "Lister")
	case path == "k8s.io/client-go/dynamic/dynamiclister", path == "k8s.io/client-go/metadata/metadatalister":
		return name == "New"
	}
	return false
}

// takesClientGoIndexers reports whether path.name is a constructor whose
// indexers parameter (at the returned index) has client-go's cache.Indexers
// type: client-go's typed informer constructors (NewPodInformer,
// NewFilteredPodInformer) and the dynamic and metadata informer
// constructors, in client-go's packages and in fanout's
// (contrib/clientgo/dynamicinformer and metadatainformer keep client-go's
// signatures, so their indexers are client-go's too; a module that
// imports those already gets the same conversion).
func takesClientGoIndexers(path, name string) (int, bool) {
	switch {
	case isTypedInformersPath(path):
		if strings.HasPrefix(name, "New") && strings.HasSuffix(name, "Informer") {
			return 3, true // (client, namespace, resync, indexers, ...)
		}
	case name == "NewFilteredDynamicInformer" && (path == clientGoDynamicInf || path == importRewrites[clientGoDynamicInf]),
		name == "NewFilteredMetadataInformer" && (path == clientGoMetadataInf || path == importRewrites[clientGoMetadataInf]):
		return 4, true // (client, gvr, namespace, resync, indexers, tweak)
	}
	return 0, false
}
