package informer_test

import (
	"context"
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	cache "github.com/kfanout/fanout/informer"
)

// podSource is a minimal ListerWatcher: a fixed list and a watch that a
// test can feed.
func podSource(pods ...string) (cache.ListerWatcher, *watch.FakeWatcher) {
	w := watch.NewFakeWithChanSize(10, false)
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}
	for _, name := range pods {
		list.Items = append(list.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: "10"}})
	}
	return listAndWatchOnly{&cache.ListWatch{
		ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { return list, nil },
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}}, w
}

// listAndWatchOnly marks a ListWatch whose watch cannot stream the initial
// list (it never sends the initial-events-end bookmark), so that the
// reflector lists, as it does for client-go's fake clientsets. Without the
// mark the reflector would try a watch-list, which is on by default.
type listAndWatchOnly struct{ *cache.ListWatch }

func (listAndWatchOnly) IsWatchListSemanticsUnSupported() bool { return true }

func ExampleNewSharedIndexInformer() {
	lw, _ := podSource("web-1", "web-2")
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return
	}
	keys, _ := inf.GetIndexer().IndexKeys(cache.NamespaceIndex, "default")
	fmt.Println(keys)
	// Output: [default/web-1 default/web-2]
}

func ExampleSharedInformer_AddEventHandler() {
	lw, w := podSource("web-1")
	inf := cache.NewSharedInformer(lw, &corev1.Pod{}, 0)
	var mu sync.Mutex
	var seen []string
	deleted := make(chan struct{})
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, "add "+obj.(*corev1.Pod).Name)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, "delete "+obj.(*corev1.Pod).Name)
			close(deleted)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	stop := make(chan struct{})
	defer close(stop)
	go inf.Run(stop)
	cache.WaitForCacheSync(stop, reg.HasSynced)
	w.Delete(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", ResourceVersion: "11"}})
	<-deleted
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(seen)
	// Output: [add web-1 delete web-1]
}

func ExampleWaitForCacheSync() {
	lw, _ := podSource("a", "b", "c")
	inf := cache.NewSharedInformer(lw, &corev1.Pod{}, 0)
	var mu sync.Mutex
	var names []string
	reg, _ := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			mu.Lock()
			defer mu.Unlock()
			names = append(names, fmt.Sprintf("%s(initial=%v)", obj.(*corev1.Pod).Name, isInInitialList))
		},
	})
	stop := make(chan struct{})
	defer close(stop)
	go inf.Run(stop)
	// The registration is synced only once its handler has returned from
	// every initial-list OnAdd.
	if cache.WaitForCacheSync(stop, inf.HasSynced, reg.HasSynced) {
		mu.Lock()
		defer mu.Unlock()
		sort.Strings(names)
		fmt.Println(names)
	}
	// Output: [a(initial=true) b(initial=true) c(initial=true)]
}
