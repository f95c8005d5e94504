package informer_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	// "k8s.io/client-go/tools/cache"
	cache "github.com/kfanout/fanout/informer"
)

// A controller switches from client-go by its import path: the
// constructor, the indexers, the handler funcs and the wait helper keep
// their names and signatures.
func Example() {
	lw, _ := podSource("web-1")
	onAdd := func(obj any) { fmt.Println("add", obj.(*corev1.Pod).Name) }
	stopCh := make(chan struct{})
	defer close(stopCh)

	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
	})
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onAdd})
	if err != nil {
		fmt.Println(err)
		return
	}
	go inf.Run(stopCh)
	cache.WaitForCacheSync(stopCh, reg.HasSynced)
	// Output: add web-1
}
