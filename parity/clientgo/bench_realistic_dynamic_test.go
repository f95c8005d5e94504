package parity

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo/decode"
)

// dynamicImpl is an informer over a dynamic client: unstructured Pods,
// as operators watch custom resources.
type dynamicImpl struct {
	name string
	// informer names the entry of allRealImpls whose informer it builds.
	informer string
	// lean builds the client with decode.DynamicClientFor over a config
	// that drops managedFields, instead of dynamic.NewForConfig.
	lean bool
}

var dynamicImpls = []dynamicImpl{
	{"clientgo", "clientgo", false},
	{"fanout", "fanout", false},
	{"fanout-owndecode", "fanout", true},
}

// BenchmarkRealDynamicSync is BenchmarkRealInitialSync over dynamic
// clients (JSON, unstructured objects): client-go's dynamic client with
// client-go's and fanout's informers, and decode.DynamicClientFor (with
// managedFields dropped) with fanout's.
func BenchmarkRealDynamicSync(b *testing.B) {
	quietLogs(b)
	for _, n := range realPodCounts(b, 10_000, 100_000) {
		s := newPodServer(b, realPods(1, n))
		for _, mode := range []string{"list", "default"} {
			for _, im := range dynamicImpls {
				base := realImplNamed(b, im.informer)
				b.Run(fmt.Sprintf("pods=%s/codec=json/mode=%s/impl=%s", kName(n), mode, im.name), func(b *testing.B) {
					base.setup(b)
					measureRealSync(b, s, n, func() realInformer {
						return base.make(dynamicListWatch(b, s, im.lean, mode), &unstructured.Unstructured{})
					})
				})
			}
		}
		s.srv.CloseClientConnections()
	}
}

// dynamicListWatch lists and watches s's Pods through a dynamic client,
// fanout's lean one when lean is set.
func dynamicListWatch(tb testing.TB, s *realServer, lean bool, mode string) cache.ListerWatcher {
	cfg := s.config("json")
	var c dynamic.Interface
	var err error
	if lean {
		c, err = decode.DynamicClientFor(decode.Wrap(cfg, decode.Options{DropManagedFields: true}))
	} else {
		c, err = dynamic.NewForConfig(cfg)
	}
	if err != nil {
		tb.Fatal(err)
	}
	pods := c.Resource(corev1.SchemeGroupVersion.WithResource("pods"))
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (kruntime.Object, error) {
			return pods.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return pods.Watch(ctx, o)
		},
	}
	if mode == "list" {
		return listOnly{lw}
	}
	return lw
}

// realImplNamed returns the entry of allRealImpls called name.
func realImplNamed(tb testing.TB, name string) realImpl {
	for _, im := range allRealImpls {
		if im.name == name {
			return im
		}
	}
	tb.Fatalf("no implementation %q", name)
	return realImpl{}
}
