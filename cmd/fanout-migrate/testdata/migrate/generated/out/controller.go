package main

import (
	"github.com/kfanout/fanout/contrib/clientgo/informers"
	cache "github.com/kfanout/fanout/informer"
	appslisters "k8s.io/client-go/listers/apps/v1"

	informersv1 "example.com/bars/pkg/generated/informers/externalversions/bars/v1"
	listersv1 "example.com/bars/pkg/generated/listers/bars/v1"
)

type controller struct {
	deployments appslisters.DeploymentLister
	bars        listersv1.BarLister
	barsSynced  cache.InformerSynced
}

func newController(kube informers.SharedInformerFactory, bars informersv1.BarInformer) *controller {
	return &controller{
		deployments: appslisters.NewDeploymentLister(kube.Apps().V1().Deployments().Informer().GetIndexer()),
		bars:        listersv1.NewBarLister(bars.Informer().GetIndexer()),
		barsSynced:  bars.Informer().HasSynced,
	}
}

func main() {}
