package gvrtest

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
)

// Factory is what client-go's dynamic and metadata factory interfaces
// have in common.
type Factory interface {
	ForResource(gvr schema.GroupVersionResource) informers.GenericInformer
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool
	Shutdown()
}

// Informer returns f's informer of gvr, after checking that ForResource
// returns the same informer twice and that it is a fanout informer.
// events, if not nil, is registered on it.
func Informer(t testing.TB, f Factory, gvr schema.GroupVersionResource, events *Events) informers.GenericInformer {
	t.Helper()
	gi := f.ForResource(gvr)
	if again := f.ForResource(gvr); again != gi {
		t.Fatalf("ForResource(%v) twice: %p, then %p", gvr, gi, again)
	}
	if _, ok := clientgo.FanoutInformer(gi.Informer()); !ok {
		t.Fatalf("the informer is %T, not fanout's", gi.Informer())
	}
	if events != nil {
		if _, err := gi.Informer().AddEventHandler(events); err != nil {
			t.Fatalf("AddEventHandler: %v", err)
		}
	}
	return gi
}

// Start starts f, checks that WaitForCacheSync reports exactly gvr as
// synced, and returns a context that ends, with f shut down, when the test
// cleans up.
func Start(t testing.TB, f Factory, gvr schema.GroupVersionResource) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
	})
	f.Start(ctx.Done())
	if got := f.WaitForCacheSync(ctx.Done()); len(got) != 1 || !got[gvr] {
		t.Fatalf("WaitForCacheSync = %v, want only %v synced", got, gvr)
	}
	return ctx
}

// Keys returns the namespace/name of every object lister lists in
// namespace (metav1.NamespaceAll for all), in any order.
func Keys(t testing.TB, lister cache.GenericLister, namespace string) []string {
	t.Helper()
	var objs []runtime.Object
	var err error
	if namespace == metav1.NamespaceAll {
		objs, err = lister.List(labels.Everything())
	} else {
		objs, err = lister.ByNamespace(namespace).List(labels.Everything())
	}
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		k, err := cache.MetaNamespaceKeyFunc(o)
		if err != nil {
			t.Fatalf("key of %T: %v", o, err)
		}
		out = append(out, k)
	}
	return out
}

// ListAndWatch is what Recorder.Calls holds after one list and one watch
// of resource in namespace with the label selector lbls.
func ListAndWatch(resource, namespace, lbls string) []string {
	return []string{
		fmt.Sprintf("list %s ns=%q labels=%q", resource, namespace, lbls),
		fmt.Sprintf("watch %s ns=%q labels=%q", resource, namespace, lbls),
	}
}
