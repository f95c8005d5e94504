package informer_test

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cache "github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/internal/fakelw"
)

// A controller that follows the namespaces of its tenants changes them
// on the running informer: the pods of a namespace it leaves are deleted,
// those of a namespace it joins are added, and the pods of a namespace it
// keeps are not delivered again.
func ExampleFanoutInformer_setListOptions() {
	src := fakelw.New(&corev1.Pod{}) // a fake API server
	for _, ns := range []string{"team-a", "team-b", "team-c"} {
		src.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})
	}
	inf := cache.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, cache.SharedIndexInformerOptions{
		ListScope: cache.ListScope{Namespaces: []string{"team-a", "team-b"}},
	}).(cache.FanoutInformer)
	events := make(chan string, 10)
	key := func(obj any) string { k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); return k }
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { events <- "add " + key(obj) },
		UpdateFunc: func(_, obj any) { events <- "update " + key(obj) },
		DeleteFunc: func(obj any) { events <- "delete " + key(obj) },
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	initial := []string{<-events, <-events}
	sort.Strings(initial)
	fmt.Println(initial)

	// Any label or field selector goes in Tweak, as in a factory's tweak.
	err := inf.SetListOptions(ctx, cache.ListScope{Namespaces: []string{"team-b", "team-c"}})
	if err != nil {
		fmt.Println(err) // a selector that does not parse, namespaces of a cluster-scoped resource...
		return
	}
	fmt.Println(<-events)
	fmt.Println(<-events)
	fmt.Println(inf.HasSynced())
	// Output:
	// [add team-a/web add team-b/web]
	// delete team-a/web
	// add team-c/web
	// true
}
