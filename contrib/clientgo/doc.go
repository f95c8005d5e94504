// Package clientgo adapts fanout informers to client-go's types, for code
// that hands an informer or an indexer to a library built on client-go.
//
// NewSharedIndexInformer has the signature of controller-runtime's
// cache.Options.NewInformer and returns a fanout informer seen through
// client-go's cache.SharedIndexInformer; NewSharedIndexInformerFunc does
// the same with fanout's own options, and Wrap and WrapWithHandlerDefaults
// adapt an informer built by package informer. FanoutInformer gets the
// fanout informer back. Indexer serves client-go's generated listers from a
// fanout store, and FollowClientGoFeatureGates reads client-go's feature
// gates instead of fanout's environment variables.
//
// The subpackages informers, dynamicinformer and metadatainformer are the
// informer factories of k8s.io/client-go/informers, dynamic/dynamicinformer
// and metadata/metadatainformer, building fanout informers. The tests that
// compare this module with client-go live in the parity module.
package clientgo
