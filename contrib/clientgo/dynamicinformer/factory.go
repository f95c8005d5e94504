package dynamicinformer

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	cgdynamicinformer "k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/internal/gvrfactory"
)

// DynamicSharedInformerFactory is client-go's interface, so code that
// takes one accepts this package's factories.
type DynamicSharedInformerFactory = cgdynamicinformer.DynamicSharedInformerFactory

// TweakListOptionsFunc edits the options of every list and watch; it is
// client-go's type.
type TweakListOptionsFunc = cgdynamicinformer.TweakListOptionsFunc

// NewDynamicSharedInformerFactory returns a factory of informers over all
// namespaces, whose handlers resync every defaultResync (0 for never).
func NewDynamicSharedInformerFactory(client dynamic.Interface, defaultResync time.Duration) DynamicSharedInformerFactory {
	return NewFilteredDynamicSharedInformerFactory(client, defaultResync, metav1.NamespaceAll, nil)
}

// NewFilteredDynamicSharedInformerFactory returns a factory whose informers
// watch only namespace (metav1.NamespaceAll for all) and apply
// tweakListOptions, if not nil, to every list and watch. Each informer has
// client-go's namespace index (cache.NamespaceIndex).
func NewFilteredDynamicSharedInformerFactory(client dynamic.Interface, defaultResync time.Duration, namespace string, tweakListOptions TweakListOptionsFunc) DynamicSharedInformerFactory {
	return gvrfactory.New(func(gvr schema.GroupVersionResource) informers.GenericInformer {
		return NewFilteredDynamicInformer(client, gvr, namespace, defaultResync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, tweakListOptions)
	})
}

// InformerRemover is implemented by this package's factories:
//
//	err := f.(dynamicinformer.InformerRemover).RemoveInformer(ctx, gvr)
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
