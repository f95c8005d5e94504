package sharding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kfanout/fanout/informer"
	"github.com/kfanout/fanout/internal/informermetrics"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
)

// releaseRecorder is an informer and listener metrics provider that
// records what it is asked to release.
type releaseRecorder struct {
	informermetrics.NoopListenerMetricsProvider
	mu        sync.Mutex
	informers []string
	refusals  []string
	listeners []string
}

func (p *releaseRecorder) NewQueuedItemMetric(informer.InformerNameAndResource) informer.GaugeMetric {
	return informermetrics.Noop{}
}

func (p *releaseRecorder) NewProcessingLatencyMetric(informer.InformerNameAndResource) informer.HistogramMetric {
	return informermetrics.Noop{}
}

func (p *releaseRecorder) NewStoreResourceVersionMetric(informer.InformerNameAndResource) informer.GaugeMetric {
	return informermetrics.Noop{}
}

func (p *releaseRecorder) NewIndexRefusalsMetric(string) informer.ListenerCounterMetric {
	return informermetrics.Noop{}
}

func (p *releaseRecorder) ReleaseInformer(id informer.InformerNameAndResource) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.informers = append(p.informers, id.Name())
}

func (p *releaseRecorder) ReleaseIndexRefusals(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refusals = append(p.refusals, name)
}

func (p *releaseRecorder) Release(id informer.ListenerID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, id.Informer+"/"+id.Handler)
}

// take returns what was released since the last call, each list sorted.
func (p *releaseRecorder) take() (informers, refusals, listeners []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	informers, refusals, listeners = p.informers, p.refusals, p.listeners
	p.informers, p.refusals, p.listeners = nil, nil, nil
	slices.Sort(informers)
	slices.Sort(refusals)
	slices.Sort(listeners)
	return informers, refusals, listeners
}

// TestShardedRangeMetricsReleased: a range informer's series (its
// handlers' and its index refusal counter) are released when the range
// stops, gracefully or forced, and the rest at Shutdown; nothing is
// released while the range runs.
func TestShardedRangeMetricsReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		src := newObjectSource(t, true, 2)
		for i := range 10 {
			src.create(t, rng, fmt.Sprintf("cm-%d", i))
		}
		p := &releaseRecorder{}
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{Informer: informer.SharedIndexInformerOptions{
			ObjectDescription: "cms", InformerMetricsProvider: p, ListenerMetricsProvider: p,
		}})
		_, err := s.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{}, informer.HandlerOptions{Name: "h"})
		require.NoError(t, err)
		rs, _ := ring.Ranges(4)
		for _, r := range rs[:3] {
			s.StartRange(context.Background(), r)
		}
		s.RoundDone()
		synctest.Wait()
		require.True(t, s.HasSynced())
		inf, ref, lis := p.take()
		assert.Empty(t, inf)
		assert.Empty(t, ref)
		assert.Empty(t, lis, "nothing released while the ranges run")

		name := func(r ring.Range) string { return "cms range " + r.String() }
		s.StopRange(context.Background(), rs[0], true)
		s.StopRange(context.Background(), rs[1], false)
		synctest.Wait()
		inf, ref, lis = p.take()
		assert.Empty(t, inf, "no informer identity reserved: no informer series")
		assert.Equal(t, []string{name(rs[0]), name(rs[1])}, ref)
		assert.Equal(t, []string{name(rs[0]) + "/h", name(rs[1]) + "/h"}, lis)

		require.NoError(t, s.Shutdown(t.Context()))
		inf, ref, lis = p.take()
		assert.Empty(t, inf)
		assert.Equal(t, []string{name(rs[2])}, ref)
		assert.Equal(t, []string{name(rs[2]) + "/h"}, lis)
	})
}

// TestShardedSharedIdentityReleasedAtShutdown: with a reserved informer
// identity, which every range informer shares, a range that stops leaves
// the identity's series to the other ranges; Shutdown releases them once.
func TestShardedSharedIdentityReleasedAtShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, err := informer.NewInformerName("sharded-cms")
		require.NoError(t, err)
		defer n.Release()
		src := newObjectSource(t, true, 2)
		p := &releaseRecorder{}
		s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{Informer: informer.SharedIndexInformerOptions{
			Identifier:              n.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}),
			InformerMetricsProvider: p, ListenerMetricsProvider: p,
		}})
		_, err = s.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{}, informer.HandlerOptions{Name: "h"})
		require.NoError(t, err)
		rs, _ := ring.Ranges(2)
		for _, r := range rs {
			s.StartRange(context.Background(), r)
		}
		s.RoundDone()
		synctest.Wait()

		s.StopRange(context.Background(), rs[0], false)
		synctest.Wait()
		inf, ref, _ := p.take()
		assert.Empty(t, inf, "the other range still uses the identity's series")
		assert.Empty(t, ref)

		require.NoError(t, s.Shutdown(t.Context()))
		inf, ref, _ = p.take()
		assert.Equal(t, []string{"sharded-cms"}, inf)
		assert.Equal(t, []string{"sharded-cms"}, ref)
	})
}
