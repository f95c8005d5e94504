package dynamicinformer_test

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/fake"

	"github.com/kfanout/fanout/contrib/clientgo"
	// "k8s.io/client-go/dynamic/dynamicinformer"
	"github.com/kfanout/fanout/contrib/clientgo/dynamicinformer"
	"github.com/kfanout/fanout/informer"
)

func ExampleNewFilteredDynamicSharedInformerFactory() {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cm := func(ns, name string) runtime.Object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetNamespace(ns)
		u.SetName(name)
		return u
	}
	// A real program passes dynamic.NewForConfig(cfg).
	client := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "ConfigMapList"},
		cm("default", "a"), cm("default", "b"), cm("kube-system", "c"))

	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, "default", nil)
	configMaps := f.ForResource(gvr)

	// Handlers registered through client-go's interface get fanout's
	// defaults; the fanout informer behind it takes fanout's options.
	fi, _ := clientgo.FanoutInformer(configMaps.Informer())
	_, _ = fi.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{}, informer.HandlerOptions{
		Name:       "configmap-reconciler",
		Overflow:   informer.OverflowCoalesce,
		MaxPending: 1000,
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer f.Shutdown()
	defer cancel()
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())

	objs, _ := configMaps.Lister().List(labels.Everything())
	var names []string
	for _, o := range objs {
		names = append(names, o.(*unstructured.Unstructured).GetName())
	}
	sort.Strings(names)
	fmt.Println(names)
	// Output: [a b]
}
