package informers_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
	"github.com/kfanout/fanout/informer"
)

// Code written for client-go's factory works unchanged; only the import
// differs.
func ExampleNewSharedInformerFactory() {
	client := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}})
	factory := informers.NewSharedInformerFactory(client, 0)
	pods := factory.Core().V1().Pods()
	pods.Informer() // request the informer before Start

	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); factory.Shutdown() }()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	pod, err := pods.Lister().Pods("default").Get("web")
	_, isFanout := clientgo.FanoutInformer(pods.Informer())
	fmt.Println(pod.Name, err, isFanout)
	// Output: web <nil> true
}

// WithFanoutOptions sets fanout's own options per resource: here every
// handler registered on the pod informer through client-go's
// AddEventHandler recovers its panics and coalesces past 1000 pending
// notifications.
func ExampleWithFanoutOptions() {
	podsGVR := corev1.SchemeGroupVersion.WithResource("pods")
	factory := informers.NewSharedInformerFactoryWithOptions(fake.NewClientset(), 0,
		informers.WithFanoutOptions(func(r informers.Resource, o *informers.FanoutOptions) {
			if r.GVR == podsGVR {
				o.Handler.RecoverPanics = true
				o.Handler.Overflow = informer.OverflowCoalesce
				o.Handler.MaxPending = 1000
			}
		}))
	_, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{})
	fmt.Println(err)
	// Output: <nil>
}

// An operator that watches a CRD stops its informer when the CRD is
// deleted, instead of logging list errors forever; if the CRD comes back,
// the next Informer() is a fresh informer, which the next Start runs.
func ExampleInformerRemover() {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	pods := factory.Core().V1().Pods().Informer()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); factory.Shutdown() }()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	err := factory.(informers.InformerRemover).RemoveInformer(ctx, &corev1.Pod{})
	fmt.Println(err, pods.IsStopped())

	fresh := factory.Core().V1().Pods().Informer()
	factory.Start(ctx.Done())
	fmt.Println(fresh.IsStopped(), factory.(informers.InformerRemover).RemoveInformer(ctx, &corev1.Secret{}))
	// Output:
	// <nil> true
	// false clientgo: the factory holds no informer of this resource: *v1.Secret
}
