package informer_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	cache "github.com/kfanout/fanout/informer"
)

// A controller whose ServiceAccount may not list pods learns why its
// cache does not sync: WaitForCacheSyncWithContext returns the informer's
// SyncStatus as an error once its context ends, and SyncStatus can be read
// at any time.
func ExampleWaitForCacheSyncWithContext() {
	lw := listAndWatchOnly{&cache.ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC: access denied"))
		},
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
	}}
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
	_ = inf.SetWatchErrorHandler(func(*cache.Reflector, error) {}) // keep the example's output short
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)

	waitCtx, done := context.WithTimeout(ctx, 2*time.Second)
	defer done()
	err := cache.WaitForCacheSyncWithContext(waitCtx, inf.HasSynced)
	if apierrors.IsForbidden(err) {
		st := inf.(cache.FanoutInformer).SyncStatus()
		fmt.Println(st.State, st.Attempts > 0, apierrors.IsForbidden(st.LastError))
	}
	// Output: ListFailing true true
}

// A controller that wrote an object waits until its cache has seen that
// write before it reads from the cache, instead of acting on stale state.
func ExampleFanoutInformer_waitForResourceVersion() {
	lw, w := podSource("web-1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil).(cache.FanoutInformer)
	go inf.RunWithContext(ctx)

	// The server accepted our update of web-1 at resourceVersion 11 (here
	// the fake watch delivers it).
	written := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", ResourceVersion: "11", Labels: map[string]string{"v": "2"}}}
	w.Modify(written)

	if err := inf.WaitForResourceVersion(ctx, written.ResourceVersion); err != nil {
		fmt.Println(err) // the context ended, the informer stopped, or not a resourceVersion
		return
	}
	obj, _, _ := inf.GetStore().GetByKey("default/web-1")
	fmt.Println(obj.(*corev1.Pod).Labels["v"])
	// Output: 2
}

// A handler that keeps its own view (here a map; in a controller, often a
// work queue or an index) waits until it has seen the controller's own
// write, not just the cache.
func ExampleFanoutRegistration_waitForResourceVersion() {
	lw, w := podSource("web-1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
	var mu sync.Mutex
	seen := map[string]string{}
	reg, _ := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, obj any) {
		mu.Lock()
		defer mu.Unlock()
		seen[obj.(*corev1.Pod).Name] = obj.(*corev1.Pod).Labels["v"]
	}})
	go inf.RunWithContext(ctx)

	written := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", ResourceVersion: "11", Labels: map[string]string{"v": "2"}}}
	w.Modify(written)

	if err := reg.(cache.FanoutRegistration).WaitForResourceVersion(ctx, written.ResourceVersion); err != nil {
		fmt.Println(err) // the context ended, the handler was removed, or Workers > 1
		return
	}
	mu.Lock()
	fmt.Println(seen["web-1"])
	mu.Unlock()
	// Output: 2
}
