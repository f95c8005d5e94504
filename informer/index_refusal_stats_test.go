package informer

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/internal/fakelw"
	"github.com/kfanout/fanout/internal/informermetrics"
)

// refusalCounter is a listener metrics provider that counts index
// refusals per informer.
type refusalCounter struct {
	informermetrics.NoopListenerMetricsProvider
	mu     sync.Mutex
	counts map[string]float64
}

type refusalCount struct {
	p    *refusalCounter
	name string
}

func (c refusalCount) Inc() { c.Add(1) }
func (c refusalCount) Add(v float64) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.p.counts[c.name] += v
}

func (p *refusalCounter) NewIndexRefusalsMetric(informer string) informermetrics.CounterMetric {
	return refusalCount{p: p, name: informer}
}

func (p *refusalCounter) get() map[string]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]float64{}
	for k, v := range p.counts {
		out[k] = v
	}
	return out
}

// Every index refusal, in the initial list and in a watch event, is
// counted in the metrics provider under the informer's name, and the
// informer's stats count them and show the last one.
func TestIndexRefusalCountedAndRemembered(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src := fakelw.New(&corev1.Pod{})
		src.Add(siPod("a"))
		src.Add(siPod("b", "bad"))
		src.Add(siPod("c"))
		metrics := &refusalCounter{counts: map[string]float64{}}
		inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, SharedIndexInformerOptions{
			InOrder: queueOption(inOrder), Indexers: Indexers{"refuse": refuseLabelled}, ListenerMetricsProvider: metrics})
		stats, _ := InformerStatsOf(inf)
		assert.Zero(t, stats.IndexRefusals)
		assert.Nil(t, stats.LastIndexRefusal)
		start := time.Now()
		stop := siRun(t, inf)
		time.Sleep(time.Second)
		require.True(t, inf.HasSynced())

		stats, _ = InformerStatsOf(inf)
		assert.Equal(t, uint64(1), stats.IndexRefusals)
		require.NotNil(t, stats.LastIndexRefusal)
		last := *stats.LastIndexRefusal
		assert.Equal(t, "ns/b", last.Key)
		assert.Equal(t, "refuse", last.Index)
		assert.EqualError(t, last.Err, "refused")
		assert.Equal(t, start, last.Time, "refused at once, on the informer's clock")
		assert.Equal(t, map[string]float64{"*v1.Pod": 1}, metrics.get())

		time.Sleep(time.Minute)
		src.Modify(siPod("a", "bad"))
		time.Sleep(time.Second)
		stats, _ = InformerStatsOf(inf)
		assert.Equal(t, uint64(2), stats.IndexRefusals)
		require.NotNil(t, stats.LastIndexRefusal)
		assert.Equal(t, "ns/a", stats.LastIndexRefusal.Key)
		assert.Equal(t, start.Add(time.Minute+time.Second), stats.LastIndexRefusal.Time)
		assert.Equal(t, map[string]float64{"*v1.Pod": 2}, metrics.get())
		stop()
	})
}

// A refused write runs the refusing index function once, also in a list
// (where the whole replace is tried first): a count of the index
// function's errors equals the informer's count of refusals, so neither
// can hide a lost write.
func TestIndexRefusalOneIndexCallPerRefusedWrite(t *testing.T) {
	inBubble(t, func(t *testing.T, inOrder bool) {
		src := fakelw.New(&corev1.Pod{})
		for _, p := range []*corev1.Pod{siPod("a"), siPod("b", "bad"), siPod("c"), siPod("d", "bad"), siPod("e")} {
			src.Add(p)
		}
		var mu sync.Mutex
		errs := map[string]int{}
		countRefusals := func(obj any) ([]string, error) {
			values, err := refuseLabelled(obj)
			if err != nil {
				mu.Lock()
				errs[obj.(*corev1.Pod).Name]++
				mu.Unlock()
			}
			return values, err
		}
		inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, SharedIndexInformerOptions{
			InOrder: queueOption(inOrder), Indexers: Indexers{"refuse": countRefusals}})
		stop := siRun(t, inf)
		time.Sleep(time.Second)
		require.True(t, inf.HasSynced())
		assert.Equal(t, []string{"ns/a", "ns/c", "ns/e"}, storedNames(inf))

		stats, _ := InformerStatsOf(inf)
		mu.Lock()
		assert.Equal(t, map[string]int{"b": 1, "d": 1}, errs, "index function errors per object")
		mu.Unlock()
		assert.Equal(t, uint64(2), stats.IndexRefusals)
		stop()
	})
}
