package debugpage

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/internal/fakelw"
)

// scenario is an informer on three ConfigMaps with a healthy handler (it
// returns at once) and a stalled one (its first call blocks until the
// test ends), running in the caller's synctest bubble.
type scenario struct {
	src *fakelw.Source
	inf informer.SharedIndexInformer
}

// cm is a ConfigMap in namespace ns.
func cm(name, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{"v": value}}
}

// startScenario starts the scenario and waits until the informer has
// synced and the stalled handler is blocked. Cleanup releases the handler
// and stops the informer.
func startScenario(t *testing.T) *scenario {
	t.Helper()
	src := fakelw.New(&corev1.ConfigMap{})
	for _, n := range []string{"a", "b", "c"} {
		src.Add(cm(n, "0"))
	}
	inf := informer.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, nil)
	release := make(chan struct{})
	var once sync.Once
	stall := func(any) { once.Do(func() { <-release }) }
	if _, err := inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{}, informer.HandlerOptions{Name: "healthy"}); err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{AddFunc: stall, UpdateFunc: func(_, o any) { stall(o) }},
		informer.HandlerOptions{Name: "stalled"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() {
		close(release)
		cancel()
		wg.Wait()
	})
	synctest.Wait()
	return &scenario{src: src, inf: inf}
}
