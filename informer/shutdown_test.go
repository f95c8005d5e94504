package informer

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kfanout/fanout/internal/fakelw"
	"github.com/kfanout/fanout/internal/informermetrics"
)

// releasingProvider is an informer and listener metrics provider that
// records what it was asked to release.
type releasingProvider struct {
	informermetrics.NoopListenerMetricsProvider
	mu        sync.Mutex
	informers []string
	refusals  []string
	listeners []ListenerID
}

func (p *releasingProvider) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric {
	return informermetrics.Noop{}
}

func (p *releasingProvider) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return informermetrics.Noop{}
}

func (p *releasingProvider) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return informermetrics.Noop{}
}

func (p *releasingProvider) NewIndexRefusalsMetric(string) ListenerCounterMetric {
	return informermetrics.Noop{}
}

func (p *releasingProvider) ReleaseInformer(id InformerNameAndResource) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.informers = append(p.informers, id.Name()+" "+id.GroupVersionResource().String())
}

func (p *releasingProvider) ReleaseIndexRefusals(informer string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refusals = append(p.refusals, informer)
}

func (p *releasingProvider) Release(id ListenerID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, id)
}

// TestShutdownStopsRunningInformer: Shutdown stops an informer whose Run
// context never ends: the watch is stopped, Run and every goroutine it
// started return (the bubble would otherwise deadlock at its end), the
// handler's listener and the informer's metrics are released, and the
// informer refuses a second Run and new handlers as client-go's stopped
// informer does.
func TestShutdownStopsRunningInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		name, err := NewInformerName("shutdown-test")
		require.NoError(t, err)
		defer name.Release()
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		fw := watch.NewFake()
		lw := noWatchList(&ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{
					{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1"}}}}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
		})
		p := &releasingProvider{}
		inf := NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, SharedIndexInformerOptions{
			Identifier:              name.WithResource(gvr),
			InformerMetricsProvider: p,
			ListenerMetricsProvider: p,
		}).(FanoutInformer)
		rec := &siRecorder{}
		reg, err := inf.AddEventHandlerWithOptions(rec, HandlerOptions{Name: "h"})
		require.NoError(t, err)

		ran := make(chan struct{})
		go func() { defer close(ran); inf.RunWithContext(context.Background()) }()
		synctest.Wait()
		require.True(t, reg.HasSynced())
		assert.Equal(t, []string{"add ns/a@1 initial=true"}, rec.take())

		require.NoError(t, inf.Shutdown(t.Context()))
		<-ran // Run has returned
		assert.True(t, fw.IsStopped(), "the watch is stopped")
		assert.True(t, inf.IsStopped())
		assert.Equal(t, SyncSynced, inf.SyncStatus().State, "a synced informer stays synced")
		p.mu.Lock()
		assert.Equal(t, []string{"shutdown-test /v1, Resource=pods"}, p.informers)
		assert.Equal(t, []string{"shutdown-test"}, p.refusals)
		assert.Equal(t, []ListenerID{{Informer: "shutdown-test", Handler: "h"}}, p.listeners)
		p.mu.Unlock()

		// Stopped for good: a second Run returns at once, handlers and
		// indexers are refused, Shutdown again is a no-op.
		inf.RunWithContext(context.Background())
		_, err = inf.AddEventHandler(&siRecorder{})
		require.ErrorContains(t, err, "because it has stopped already")
		require.ErrorContains(t, inf.AddIndexers(Indexers{"x": MetaNamespaceIndexFunc}), "stopped already")
		require.NoError(t, inf.Shutdown(t.Context()))
		assert.Empty(t, rec.take(), "nothing delivered after Shutdown")
	})
}

// TestShutdownBeforeRun: an informer shut down before it ran never runs:
// Run returns at once (it does not hang), the informer counts as stopped.
func TestShutdownBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fw := watch.NewFake()
		lw := noWatchList(&ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				t.Error("a shut-down informer listed")
				return &corev1.PodList{}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
		})
		inf := NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil).(FanoutInformer)
		require.NoError(t, inf.Shutdown(t.Context()))
		assert.True(t, inf.IsStopped())
		inf.RunWithContext(context.Background())
		assert.False(t, inf.HasSynced())
		assert.Equal(t, SyncStopped, inf.SyncStatus().State)
	})
}

// TestShutdownWaitsForHandler: Shutdown waits for a handler call in
// progress, and returns the context's error if the context ends first; a
// later call, once the handler returned, succeeds.
func TestShutdownWaitsForHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := noWatchList(&ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{
					{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1"}}}}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
		})
		inf := NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil).(FanoutInformer)
		rec := &siRecorder{block: make(chan struct{})}
		_, err := inf.AddEventHandler(rec)
		require.NoError(t, err)
		ran := make(chan struct{})
		go func() { defer close(ran); inf.RunWithContext(context.Background()) }()
		synctest.Wait() // the handler is blocked in OnAdd

		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		require.ErrorIs(t, inf.Shutdown(ctx), context.Canceled)
		close(rec.block)
		require.NoError(t, inf.Shutdown(t.Context()))
		<-ran
	})
}

// noWatchList marks lw as a source that cannot serve watch-list
// requests, so that the reflector lists.
func noWatchList(lw *ListWatch) ListerWatcher {
	return ToListWatcherWithWatchListSemantics(lw, fakelw.New(&corev1.Pod{}))
}
