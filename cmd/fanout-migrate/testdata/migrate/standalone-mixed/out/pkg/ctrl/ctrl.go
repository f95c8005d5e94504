// Package ctrl mixes a factory, listers, helpers and direct tools/cache use.
package ctrl

import (
	"context"
	"time"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
	cache "github.com/kfanout/fanout/informer"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"

	"example.com/golden/typeid-mixed/pkg/helper"
)

// Controller keeps client-go's types in fields.
type Controller struct {
	informer   cache.SharedIndexInformer
	controller cache.Controller
	store      cache.Store
	lister     corelisters.PodLister
	synced     []cache.InformerSynced
}

// pair is filled positionally.
type pair struct {
	idx cache.Indexer
	reg cache.ResourceEventHandlerRegistration
}

// New builds the controller.
func New(ctx context.Context, client kubernetes.Interface) (*Controller, error) {
	factory := informers.NewSharedInformerFactory(client, time.Minute)
	pods := factory.Core().V1().Pods()
	if err := helper.AddPodIndexer(pods.Informer()); err != nil {
		return nil, err
	}
	own := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "pods", "", nil), &corev1.Pod{}, 0, cache.Indexers{})
	reg, err := own.AddEventHandlerWithOptions(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if _, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				_, _ = helper.Key(obj)
			}
		},
	}, cache.HandlerOptions{})
	if err != nil {
		return nil, err
	}
	typed := cache.NewTypedSharedIndexInformer[*corev1.Pod](own)
	_ = typed
	_ = pair{own.GetIndexer(), reg}
	_ = pair{pods.Informer().GetIndexer(), reg}
	c := &Controller{
		informer:   pods.Informer(),
		controller: own.GetController(),
		store:      pods.Informer().GetStore(),
		lister:     corelisters.NewPodLister(clientgo.Indexer(own.GetIndexer())),
		synced:     []cache.InformerSynced{pods.Informer().HasSynced, own.HasSynced},
	}
	go own.RunWithContext(ctx)
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return nil, context.Canceled
	}
	return c, cache.ShutDownEventHandler(own, reg)
}
