package sharding_test

import (
	"context"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/contrib/sharding"
)

// ring is the configuration every replica of a controller shares, but for
// its Identity.
func ring(cs kubernetes.Interface) sharding.Config {
	return sharding.Config{
		Client:    cs.CoordinationV1(),
		Namespace: "ctrl-system",
		Ring:      "ctrl",
		Identity:  os.Getenv("POD_NAME"),
	}
}

// A controller-runtime manager's cache, sharded: pass the constructor as
// cache.Options{NewInformer: newInformer}.
func ExampleNewInformerFunc() {
	var cs kubernetes.Interface = fake.NewClientset() // a replica uses kubernetes.NewForConfig
	r := ring(cs)
	newInformer := sharding.NewInformerFunc(sharding.Options{Ring: &r})
	var _ func(cache.ListerWatcher, runtime.Object, time.Duration, cache.Indexers) cache.SharedIndexInformer = newInformer
	fmt.Println(sharding.RingFor("ctrl", &corev1.ConfigMap{})[:15])
	// Output: ctrl-configmap-
}

// A client-go style informer factory whose informers and listers serve
// only the replica's ranges.
func ExampleWithSharding() {
	var cs kubernetes.Interface = fake.NewClientset() // a replica uses kubernetes.NewForConfig
	r := ring(cs)
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, sharding.WithSharding(sharding.Options{Ring: &r}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_ = f.Core().V1().ConfigMaps().Lister() // lists owned ConfigMaps once started
	_ = ctx                                 // f.Start(ctx.Done()); f.WaitForCacheSync(ctx.Done())
}
