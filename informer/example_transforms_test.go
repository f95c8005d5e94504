package informer_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	cache "github.com/kfanout/fanout/informer"
)

// The memory options for a large cache of decoded objects are transforms,
// set before the informer runs: the cache then keeps Pods without their
// managedFields, and equal labels, annotations and strings once.
func ExampleDropManagedFields() {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}}
	lw := listAndWatchOnly{&cache.ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{*pod}}, nil
		},
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
	}}

	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
	_ = inf.SetTransform(cache.ChainTransforms(cache.DropManagedFields(), cache.ShareEqualValues()))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	obj, _, _ := inf.GetStore().GetByKey("default/web-1")
	fmt.Println("managedFields kept:", len(obj.(*corev1.Pod).ManagedFields))
	// Output: managedFields kept: 0
}
