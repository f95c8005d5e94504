package informer_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	cache "github.com/kfanout/fanout/informer"
)

// A typed informer hands its handlers and indexers *corev1.Pod values, with
// no type assertions.
func ExampleNewTypedSharedIndexInformer() {
	lw, _ := podSource("web-1")
	inf := cache.NewTypedSharedIndexInformer[*corev1.Pod](cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}))
	added := make(chan string, 1)
	reg, err := inf.AddTypedEventHandler(cache.TypedResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc: func(pod *corev1.Pod) { added <- pod.Namespace + "/" + pod.Name },
	}, cache.HandlerOptions{Name: "pods"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	cache.WaitForCacheSync(ctx.Done(), reg.HasSynced)
	fmt.Println(<-added)
	pods, _ := inf.GetTypedIndexer().ByTypedIndex(cache.NamespaceIndex, "default")
	fmt.Println(len(pods), pods[0].Name)
	// Output:
	// default/web-1
	// 1 web-1
}
