package cache_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	// "k8s.io/client-go/tools/cache"
	"github.com/kfanout/fanout/contrib/clientgo/cache"
	// "k8s.io/client-go/informers"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
)

// A controller that uses client-go broadly switches two import paths: the
// factory builds fanout informers, and every value keeps client-go's type.
func Example() {
	client := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1"}})
	factory := informers.NewSharedInformerFactory(client, 0)
	defer factory.Shutdown()
	stop := make(chan struct{})
	defer close(stop)

	pods := factory.Core().V1().Pods().Informer()
	reg, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { fmt.Println("add", obj.(*corev1.Pod).Name) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	factory.Start(stop)
	cache.WaitForCacheSync(stop, reg.HasSynced)
	// Output: add web-1
}
