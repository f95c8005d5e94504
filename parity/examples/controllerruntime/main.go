// Command controllerruntime is a controller-runtime manager whose cache
// runs fanout informers instead of client-go's. It logs every ConfigMap it
// reconciles. It needs a cluster (the usual kubeconfig lookup), so tests
// only compile it.
package main

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/informer"
)

func main() {
	ctrl.SetLogger(zap.New())
	log := ctrl.Log.WithName("example")

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Cache: cache.Options{
			// clientgo.NewSharedIndexInformer alone gives the defaults
			// (client-go's); the Func variant sets fanout's own options,
			// here the seed preset (DeltaFIFO, classic listeners).
			NewInformer: clientgo.NewSharedIndexInformerFunc(func(o *informer.SharedIndexInformerOptions) {
				*o = informer.SeedPreset(*o)
			}),
		},
	})
	if err != nil {
		log.Error(err, "cannot create manager")
		os.Exit(1)
	}

	err = ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			var cm corev1.ConfigMap
			if err := mgr.GetClient().Get(ctx, req.NamespacedName, &cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			log.Info("reconciled", "configmap", req.NamespacedName, "resourceVersion", cm.ResourceVersion)
			return reconcile.Result{}, nil
		}))
	if err != nil {
		log.Error(err, "cannot create controller")
		os.Exit(1)
	}

	log.Info("starting manager with fanout informers")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
