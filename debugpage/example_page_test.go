package debugpage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/debugpage"
	"github.com/kfanout/fanout/informer"
)

// A Page is mounted like any http.Handler; ?format=json returns what the
// HTML page shows.
func Example() {
	w := watch.NewFake()
	lw := &informer.ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "7"},
				Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1"}}}}, nil
		},
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}
	pods := informer.NewSharedIndexInformer(informer.ToListWatcherWithWatchListSemantics(lw, listOnly{}), &corev1.Pod{}, 0, nil)
	reg, _ := pods.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{}, informer.HandlerOptions{Name: "reconciler"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go pods.RunWithContext(ctx)
	informer.WaitForCacheSync(ctx.Done(), reg.HasSynced)

	page := debugpage.New(debugpage.Options{})
	if err := page.Register("pods", pods); err != nil {
		fmt.Println(err)
		return
	}
	// go page.Run(ctx) keeps a backlog history between visits.
	mux := http.NewServeMux()
	mux.Handle("/debug/informers", page)

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/informers?format=json", nil))
	var snap debugpage.Snapshot
	_ = json.Unmarshal(rec.Body.Bytes(), &snap)
	inf := snap.Informers[0]
	fmt.Println(inf.Name, inf.Resource, "synced:", inf.Synced, "store:", inf.StoreSize, "rv:", inf.LastResourceVersion)
	h := inf.Handlers[0]
	fmt.Println(h.Name, h.Engine, h.Overflow, "delivered:", h.Delivered, "behind:", h.Behind)
	// Output:
	// pods *v1.Pod synced: true store: 1 rv: 7
	// reconciler direct Grow delivered: 1 behind: false
}

// listOnly marks a ListWatch whose fake watch cannot stream the initial
// list, so that the reflector lists, as it does for client-go's fake
// clientsets; watch-list is on by default.
type listOnly struct{}

func (listOnly) IsWatchListSemanticsUnSupported() bool { return true }
