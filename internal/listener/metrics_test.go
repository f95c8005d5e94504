package listener

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kfanout/fanout/internal/informermetrics"
)

// recProvider is a ListenerMetricsProvider that records every metric's
// value, by ListenerID and metric name.
type recProvider struct {
	mu       sync.Mutex
	values   map[informermetrics.ListenerID]map[string]float64
	observed map[informermetrics.ListenerID][]float64
	released []informermetrics.ListenerID
	sets     int // gauge sets, for the benchmark
}

func newRecProvider() *recProvider {
	return &recProvider{
		values:   map[informermetrics.ListenerID]map[string]float64{},
		observed: map[informermetrics.ListenerID][]float64{},
	}
}

// recMetric is one recorded metric.
type recMetric struct {
	p    *recProvider
	id   informermetrics.ListenerID
	name string
}

func (m recMetric) Set(v float64) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	m.p.values[m.id][m.name] = v
	m.p.sets++
}

func (m recMetric) Inc() { m.Add(1) }

func (m recMetric) Add(v float64) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	m.p.values[m.id][m.name] += v
}

func (m recMetric) Observe(v float64) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	m.p.observed[m.id] = append(m.p.observed[m.id], v)
}

func (p *recProvider) metric(id informermetrics.ListenerID, name string) recMetric {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.values[id] == nil {
		p.values[id] = map[string]float64{}
	}
	p.values[id][name] = 0
	return recMetric{p: p, id: id, name: name}
}

func (p *recProvider) NewPendingMetric(id informermetrics.ListenerID) informermetrics.GaugeMetric {
	return p.metric(id, "pending")
}
func (p *recProvider) NewHighWaterMetric(id informermetrics.ListenerID) informermetrics.GaugeMetric {
	return p.metric(id, "highwater")
}
func (p *recProvider) NewDeliveredMetric(id informermetrics.ListenerID) informermetrics.CounterMetric {
	return p.metric(id, "delivered")
}
func (p *recProvider) NewCoalescedMetric(id informermetrics.ListenerID) informermetrics.CounterMetric {
	return p.metric(id, "coalesced")
}
func (p *recProvider) NewPanicsMetric(id informermetrics.ListenerID) informermetrics.CounterMetric {
	return p.metric(id, "panics")
}
func (p *recProvider) NewHandlerDurationMetric(id informermetrics.ListenerID) informermetrics.HistogramMetric {
	return p.metric(id, "duration")
}
func (p *recProvider) NewOldestPendingAgeMetric(id informermetrics.ListenerID) informermetrics.GaugeMetric {
	return p.metric(id, "oldest")
}
func (p *recProvider) Release(id informermetrics.ListenerID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released = append(p.released, id)
}

// snapshot renders id's values as "pending=1 highwater=1 ...", in a fixed
// order, and its observations.
func (p *recProvider) snapshot(id informermetrics.ListenerID) (string, []float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.values[id]
	return fmt.Sprintf("pending=%v highwater=%v delivered=%v coalesced=%v panics=%v oldest=%v",
		v["pending"], v["highwater"], v["delivered"], v["coalesced"], v["panics"], v["oldest"]), slices.Clone(p.observed[id])
}

func (p *recProvider) releasedIDs() []informermetrics.ListenerID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.released)
}

var testID = informermetrics.ListenerID{Informer: "pods", Handler: "slow"}

func wantMetrics(t *testing.T, p *recProvider, step, want string) {
	t.Helper()
	if got, _ := p.snapshot(testID); got != want {
		t.Fatalf("%s:\n got  %s\n want %s", step, got, want)
	}
}

// Through a stalled handler, every gauge and counter has its exact value,
// and the first pending notification is visible at once.
func TestMetricsStalledHandler(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		rec := newRecProvider()
		g := newGate("add a false")
		h := &recorder{before: g.wait}
		l := mustBound(t, p, h, Binding{UpstreamHasSynced: newUpstream("inf"), Metrics: rec, MetricsInformer: "pods"}, Options{Engine: eng, Name: "slow", SlowHandlerThreshold: -1})
		wantMetrics(t, rec, "created", "pending=0 highwater=0 delivered=0 coalesced=0 panics=0 oldest=0")
		stop := runProcessor(p)

		p.Distribute(NewAdd("a", false), false) // the handler stalls on a
		synctest.Wait()
		// a was pending for a moment before it reached the handler.
		wantMetrics(t, rec, "a in the handler", "pending=0 highwater=1 delivered=1 coalesced=0 panics=0 oldest=0")

		p.Distribute(NewAdd("b", false), false)
		synctest.Wait()
		wantMetrics(t, rec, "first pending", "pending=1 highwater=1 delivered=1 coalesced=0 panics=0 oldest=0")
		if s := l.Stats(); s.Pending != 1 || s.HighWater != 1 {
			t.Fatalf("Stats after the first pending one = %+v, want Pending 1, HighWater 1", s)
		}
		p.Distribute(NewAdd("c", false), false)
		p.Distribute(NewAdd("d", false), false)
		synctest.Wait()
		wantMetrics(t, rec, "three pending", "pending=3 highwater=3 delivered=1 coalesced=0 panics=0 oldest=0")

		// The age is refreshed every second while the handler is stuck.
		time.Sleep(2500 * time.Millisecond)
		synctest.Wait()
		wantMetrics(t, rec, "2.5s later", "pending=3 highwater=3 delivered=1 coalesced=0 panics=0 oldest=2")
		if s := l.Stats(); s.OldestPendingAge != 2500*time.Millisecond {
			t.Fatalf("Stats.OldestPendingAge = %v, want 2.5s", s.OldestPendingAge)
		}

		g.release("add a false")
		synctest.Wait()
		wantMetrics(t, rec, "drained", "pending=0 highwater=3 delivered=4 coalesced=0 panics=0 oldest=0")
		if _, obs := rec.snapshot(testID); !slices.Equal(obs, []float64{2.5, 0, 0, 0}) {
			t.Fatalf("handler durations = %v, want [2.5 0 0 0]", obs)
		}
		if s := l.Stats(); s.Pending != 0 || s.HighWater != 3 || s.Delivered != 4 || s.OldestPendingAge != 0 {
			t.Fatalf("Stats drained = %+v, want Pending 0, HighWater 3, Delivered 4", s)
		}
		if got := rec.releasedIDs(); len(got) != 0 {
			t.Fatalf("released %v while running", got)
		}
		stop()
		if got := rec.releasedIDs(); !slices.Equal(got, []informermetrics.ListenerID{testID}) {
			t.Fatalf("released after stop = %v, want [%v]", got, testID)
		}
	})
}

// Coalesced and panics counters.
func TestMetricsCoalescedAndPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		rec := newRecProvider()
		g := newGate("update x x1")
		h := &recorder{before: func(call string) {
			g.wait(call)
			if call == "delete y" {
				panic("boom")
			}
		}}
		key := func(obj any) (string, error) { return fmt.Sprint(obj)[:1], nil }
		mustBound(t, p, h, Binding{UpstreamHasSynced: newUpstream("inf"), Metrics: rec, MetricsInformer: "pods"}, Options{Name: "slow", SlowHandlerThreshold: -1, Overflow: OverflowCoalesce, KeyFunc: key, RecoverPanics: true, Logger: discardLogger()})
		stop := runProcessor(p)
		defer stop()

		p.Distribute(NewUpdate("x", "x1"), false) // stalls
		synctest.Wait()
		p.Distribute(NewUpdate("x1", "x2"), false)
		p.Distribute(NewUpdate("x2", "x3"), false) // merged into x1->x3
		p.Distribute(NewAdd("y", false), false)
		p.Distribute(NewDelete("y"), false) // cancels the add: 2
		p.Distribute(NewAdd("y", false), false)
		synctest.Wait()
		wantMetrics(t, rec, "stalled", "pending=2 highwater=2 delivered=1 coalesced=3 panics=0 oldest=0")
		p.Distribute(NewDelete("y"), false) // add+delete: 2 more
		p.Distribute(NewDelete("y"), false) // a delete of nothing pending: queued
		synctest.Wait()
		g.release("update x x1")
		synctest.Wait()
		wantMetrics(t, rec, "drained", "pending=0 highwater=2 delivered=3 coalesced=5 panics=1 oldest=0")
		wantCalls(t, "handler", h.got(), []string{"update x x1", "update x1 x3"})
	})
}

// Removing a registration releases its metrics, whether or not the
// processor ever ran; a nil or no-op provider creates none.
func TestMetricsReleaseOnRemoval(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		rec := newRecProvider()
		opts := Options{Engine: eng, Name: "slow"}
		bind := func() Binding {
			return Binding{UpstreamHasSynced: newUpstream("inf"), Metrics: rec, MetricsInformer: "pods"}
		}

		idle := NewProcessor(ProcessorOptions{})
		l := mustBound(t, idle, &recorder{}, bind(), opts)
		if err := idle.RemoveListener(l); err != nil {
			t.Fatal(err)
		}
		if got := rec.releasedIDs(); len(got) != 1 {
			t.Fatalf("released after removal from an idle processor = %v, want one", got)
		}

		p := NewProcessor(ProcessorOptions{})
		g := newGate("add a false")
		l = mustBound(t, p, &recorder{before: g.wait}, bind(), opts)
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd("a", false), false)
		synctest.Wait()
		if err := p.RemoveListener(l); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := rec.releasedIDs(); len(got) != 1 {
			t.Fatalf("released while the handler still runs = %v, want one (the idle one)", got)
		}
		g.release("add a false")
		<-l.ShutdownChan()
		if got := rec.releasedIDs(); len(got) != 2 {
			t.Fatalf("released after the handler returned = %v, want two", got)
		}

		for _, prov := range []informermetrics.ListenerMetricsProvider{nil, informermetrics.NoopListenerMetricsProvider{}} {
			l, err := p.NewListener(&recorder{}, Binding{Metrics: prov, UpstreamHasSynced: newUpstream("x")}, Options{Engine: eng})
			if err != nil {
				t.Fatal(err)
			}
			if l.metrics != nil {
				t.Fatalf("provider %T: listener has metrics", prov)
			}
		}
	})
}
