package main

import (
	"context"
	"time"

	"k8s.io/client-go/informers"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

func run(ctx context.Context, cs kubernetes.Interface) {
	factory := informers.NewSharedInformerFactoryWithOptions(cs, time.Minute, informers.WithNamespace("default"))
	pods := factory.Core().V1().Pods()
	podInformer := pods.Informer()
	podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{})
	lister := corev1listers.NewPodLister(podInformer.GetIndexer())
	_ = lister
	factory.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), podInformer.HasSynced)
}

func main() {}

func indexes(factory informers.SharedInformerFactory, cs kubernetes.Interface) {
	pods := factory.Core().V1().Pods().Informer()
	pods.AddIndexers(cache.Indexers{"node": func(obj any) ([]string, error) { return nil, nil }})
	standalone := corev1informers.NewPodInformer(cs, "", 0, cache.Indexers{})
	_ = standalone
	pods.AddEventHandlerWithOptions(cache.ResourceEventHandlerFuncs{}, cache.HandlerOptions{})
}
