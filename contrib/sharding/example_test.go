package sharding_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/contrib/sharding"
	"github.com/kfanout/fanout/informer"
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

// Example runs one replica of a sharded ConfigMap informer: it joins the
// ring, owns the ranges rendezvous hashing gives it, and runs a fanout
// informer per owned range. It needs an apiserver (Leases, and ideally the
// ShardedListAndWatch gate), so it is compiled, not run.
func Example() {
	var cs kubernetes.Interface = fake.NewClientset() // a replica uses kubernetes.NewForConfig
	lw := &informer.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			return cs.CoreV1().ConfigMaps("").List(context.Background(), o)
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			return cs.CoreV1().ConfigMaps("").Watch(context.Background(), o)
		},
	}
	podName, randomSuffix := os.Getenv("POD_NAME"), rand.Text()[:5]
	handler := informer.ResourceEventHandlerFuncs{AddFunc: func(obj any) {}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	s := sharding.NewShardedInformer(lw, &corev1.ConfigMap{}, sharding.Options{
		Ring: &sharding.Config{Client: cs.CoordinationV1(), Namespace: "ctrl", Ring: "configmaps",
			Identity: podName + "-" + randomSuffix},
	})
	reg, err := s.AddEventHandler(handler) // reg.HasSynced covers the owned ranges' initial lists
	if err != nil {
		fmt.Println(err)
		return
	}
	go s.RunWithContext(ctx) // on ctx done: hands every range over, releases, leaves
	_ = reg
}

// One ring configuration shards every kind a controller watches, through
// controller-runtime's cache or through client-go's informer factory.
func ExampleConfig() {
	var cs kubernetes.Interface = fake.NewClientset() // a replica uses kubernetes.NewForConfig
	id := os.Getenv("POD_NAME")
	var resync time.Duration

	ring := sharding.Config{Client: cs.CoordinationV1(), Namespace: "ctrl", Ring: "ctrl", Identity: id}
	newInformer := sharding.NewInformerFunc(sharding.Options{Ring: &ring})
	// controller-runtime: ctrl.NewManager(cfg, manager.Options{Cache: cache.Options{NewInformer: newInformer}})
	var _ func(cache.ListerWatcher, runtime.Object, time.Duration, cache.Indexers) cache.SharedIndexInformer = newInformer
	// or, for code built on client-go's informer factory:
	f := informers.NewSharedInformerFactoryWithOptions(cs, resync, sharding.WithSharding(sharding.Options{Ring: &ring}))
	_ = f
}
