package informer_test

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	cache "github.com/kfanout/fanout/informer"
)

func ExampleNewIndexer() {
	byNode := func(obj any) ([]string, error) {
		return []string{obj.(*corev1.Pod).Spec.NodeName}, nil
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		"node":               byNode,
	})
	for _, p := range []struct{ ns, name, node string }{
		{"default", "web-1", "n1"},
		{"default", "web-2", "n2"},
		{"kube-system", "dns", "n1"},
	} {
		_ = indexer.Add(&corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: p.name},
			Spec:       corev1.PodSpec{NodeName: p.node},
		})
	}

	keys, _ := indexer.IndexKeys("node", "n1")
	fmt.Println("on n1:", keys)
	keys, _ = indexer.IndexKeys(cache.NamespaceIndex, "default")
	fmt.Println("in default:", keys)
	_, err := indexer.ByIndex("zone", "a")
	fmt.Println(err)
	// Output:
	// on n1: [default/web-1 kube-system/dns]
	// in default: [default/web-1 default/web-2]
	// Index with name zone does not exist
}

func ExampleListAllByNamespace() {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range []struct{ ns, name, app string }{
		{"shop", "cart", "web"},
		{"shop", "orders", "db"},
		{"blog", "front", "web"},
	} {
		_ = indexer.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: p.ns, Name: p.name, Labels: map[string]string{"app": p.app},
		}})
	}

	var names []string
	err := cache.ListAllByNamespace(indexer, "shop", labels.SelectorFromSet(labels.Set{"app": "web"}), func(obj any) {
		names = append(names, obj.(*corev1.Pod).Name)
	})
	fmt.Println(names, err)

	names = nil
	_ = cache.ListAllByNamespace(indexer, metav1.NamespaceAll, labels.Everything(), func(obj any) {
		names = append(names, obj.(*corev1.Pod).Name)
	})
	sort.Strings(names)
	fmt.Println(names)
	// Output:
	// [cart] <nil>
	// [cart front orders]
}

func ExampleNewLister() {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	_ = indexer.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"}})

	pods := cache.NewLister[*corev1.Pod](indexer, corev1.Resource("pods"))
	pod, err := pods.ByNamespace("shop").Get("cart")
	fmt.Println(pod.Name, err)
	_, err = pods.ByNamespace("shop").Get("gone")
	fmt.Println(err)
	// Output:
	// cart <nil>
	// pods "gone" not found
}
