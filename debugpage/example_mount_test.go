package debugpage_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/debugpage"
	"github.com/kfanout/fanout/informer"
)

// A controller mounts the page on its own mux and runs its sampler for as
// long as the informers run.
func ExamplePage_Run() {
	w := watch.NewFake()
	podInformer := informer.NewSharedIndexInformer(&informer.ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}, &corev1.Pod{}, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go podInformer.RunWithContext(ctx)
	mux := http.NewServeMux()

	p := debugpage.New(debugpage.Options{})
	_ = p.Register("pods", podInformer)
	go p.Run(ctx) // samples the backlog history
	mux.Handle("/debug/informers", p)

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/informers", nil))
	fmt.Println(rec.Code, strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html"))
	// Output: 200 true
}
