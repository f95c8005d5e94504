package unconvertible

import (
	"time"

	"github.com/kfanout/fanout/contrib/clientgo/cache"
	"github.com/kfanout/fanout/contrib/clientgo/informers"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

type controller struct {
	informer cache.SharedIndexInformer
}

// NewInformerFunc is handed to code that wants client-go's signature.
var NewInformerFunc = cache.NewSharedIndexInformer

func watch(inf cache.SharedIndexInformer) {}

func setup(cs kubernetes.Interface, indexer interface{ cache.Indexer }) corev1listers.PodLister {
	f := informers.NewSharedInformerFactory(cs, time.Minute)
	c := controller{informer: f.Core().V1().Pods().Informer()}
	watch(f.Core().V1().Pods().Informer())
	c.informer = f.Core().V1().Secrets().Informer()
	f.InformerFor(&corev1.Pod{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer { return nil })
	_ = runtime.Object(nil)
	return corev1listers.NewPodLister(indexer)
}
