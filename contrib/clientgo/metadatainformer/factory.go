package metadatainformer

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	cgmetadatainformer "k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrfactory"
)

// SharedInformerFactory is client-go's interface, so code that takes one
// accepts this package's factories.
type SharedInformerFactory = cgmetadatainformer.SharedInformerFactory

// TweakListOptionsFunc edits the options of every list and watch; it is
// client-go's type.
type TweakListOptionsFunc = cgmetadatainformer.TweakListOptionsFunc

// SharedInformerOption configures NewSharedInformerFactoryWithOptions.
type SharedInformerOption func(*factoryConfig) *factoryConfig

// factoryConfig is what the options set.
type factoryConfig struct {
	namespace string
	tweak     TweakListOptionsFunc
	transform cache.TransformFunc
}

// WithTransform sets transform on every informer of the factory.
func WithTransform(transform cache.TransformFunc) SharedInformerOption {
	return func(c *factoryConfig) *factoryConfig {
		c.transform = transform
		return c
	}
}

// NewSharedInformerFactory returns a factory of informers over all
// namespaces, whose handlers resync every defaultResync (0 for never).
func NewSharedInformerFactory(client metadata.Interface, defaultResync time.Duration) SharedInformerFactory {
	return NewFilteredSharedInformerFactory(client, defaultResync, metav1.NamespaceAll, nil)
}

// NewFilteredSharedInformerFactory returns a factory whose informers watch
// only namespace (metav1.NamespaceAll for all) and apply tweakListOptions,
// if not nil, to every list and watch. Each informer has client-go's
// namespace index (cache.NamespaceIndex).
func NewFilteredSharedInformerFactory(client metadata.Interface, defaultResync time.Duration, namespace string, tweakListOptions TweakListOptionsFunc) SharedInformerFactory {
	return newFactory(client, defaultResync, &factoryConfig{namespace: namespace, tweak: tweakListOptions})
}

// NewSharedInformerFactoryWithOptions returns a factory over all
// namespaces configured by options, applied in order.
func NewSharedInformerFactoryWithOptions(client metadata.Interface, defaultResync time.Duration, options ...SharedInformerOption) SharedInformerFactory {
	c := &factoryConfig{namespace: metav1.NamespaceAll}
	for _, opt := range options {
		c = opt(c)
	}
	return newFactory(client, defaultResync, c)
}

// newFactory returns a factory whose informers c describes.
func newFactory(client metadata.Interface, defaultResync time.Duration, c *factoryConfig) *gvrfactory.Factory {
	return gvrfactory.New(func(gvr schema.GroupVersionResource) informers.GenericInformer {
		inf := NewFilteredMetadataInformer(client, gvr, c.namespace, defaultResync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, c.tweak)
		// Cannot fail: the informer has not started.
		_ = inf.Informer().SetTransform(c.transform)
		return inf
	})
}

// InformerRemover is implemented by this package's factories:
//
//	err := f.(metadatainformer.InformerRemover).RemoveInformer(ctx, gvr)
//
// RemoveInformer stops the informer of gvr, waits until it has stopped
// (or ctx ends) and drops it, so that the next ForResource(gvr) returns a
// fresh informer; its handlers' goroutines end and its metrics series are
// released. For a resource the factory holds no informer of it returns an
// error wrapping clientgo.ErrInformerNotHeld and changes nothing. An
// informer stopped by its own Shutdown (clientgo.FanoutInformer) is
// dropped too.
type InformerRemover interface {
	RemoveInformer(ctx context.Context, gvr schema.GroupVersionResource) error
}
