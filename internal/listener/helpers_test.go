package listener

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"

	"github.com/kfanout/fanout/internal/testutil"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// upstream is a controllable informer sync checker.
type upstream struct {
	name string
	ch   chan struct{}
}

func newUpstream(name string) *upstream { return &upstream{name: name, ch: make(chan struct{})} }

func (u *upstream) Name() string          { return u.name }
func (u *upstream) Done() <-chan struct{} { return u.ch }
func (u *upstream) sync()                 { close(u.ch) }

// recorder is a Handler that records each call as a string ("add a true",
// "update a b", "delete a"). If before is set, it is called with the string
// first, outside the recorder's lock, and may block.
type recorder struct {
	before func(call string)

	mu    sync.Mutex
	calls []string
}

func (r *recorder) record(call string) {
	if r.before != nil {
		r.before(call)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	r.record(fmt.Sprintf("add %v %v", obj, isInInitialList))
}
func (r *recorder) OnUpdate(oldObj, newObj any) {
	r.record(fmt.Sprintf("update %v %v", oldObj, newObj))
}
func (r *recorder) OnDelete(obj any) { r.record(fmt.Sprintf("delete %v", obj)) }

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// gate makes a recorder's before hook block on chosen calls until released.
type gate struct {
	mu      sync.Mutex
	blocked map[string]chan struct{}
}

func newGate(calls ...string) *gate {
	g := &gate{blocked: map[string]chan struct{}{}}
	for _, c := range calls {
		g.blocked[c] = make(chan struct{})
	}
	return g
}

func (g *gate) wait(call string) {
	g.mu.Lock()
	ch := g.blocked[call]
	g.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func (g *gate) release(call string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.blocked[call])
	delete(g.blocked, call)
}

// mustListener creates and adds a listener for h, bound to up only.
func mustListener(t *testing.T, p *Processor, h Handler, up *upstream, opts Options) *Listener {
	t.Helper()
	return mustBound(t, p, h, Binding{UpstreamHasSynced: up}, opts)
}

// mustBound creates and adds a listener for h with binding b.
func mustBound(t *testing.T, p *Processor, h Handler, b Binding, opts Options) *Listener {
	t.Helper()
	l, err := p.NewListener(h, b, opts)
	if err != nil {
		t.Fatalf("NewListener: %v", err)
	}
	if _, err := p.AddListener(l); err != nil {
		t.Fatalf("AddListener: %v", err)
	}
	return l
}

// runProcessor starts p.Run in the bubble, waits until it has started, and
// returns a function that stops it and waits for Run to return.
func runProcessor(p *Processor) (stop func()) {
	stop = testutil.Start(context.Background(), p.Run)
	synctest.Wait()
	return stop
}

func wantCalls(t *testing.T, name string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s calls:\n got  %q\n want %q", name, got, want)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// engineVariant is an engine as the listener tests run it: the direct
// engine runs both on the processor's shared log (its normal form for
// OverflowGrow and one goroutine) and, as engineDirectQueue, on a queue of
// its own (its form for the other overload options).
type engineVariant struct {
	name string
	eng  Engine
}

// engines are the engines every listener behaviour test runs against.
var engines = []engineVariant{
	{"classic", EngineClassic},
	{"direct", EngineDirect},
	{"direct-queue", engineDirectQueue},
}

// eachEngine runs f in a synctest bubble once per engine variant, as
// subtests.
func eachEngine(t *testing.T, f func(t *testing.T, eng Engine)) {
	t.Helper()
	for _, v := range engines {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { f(t, v.eng) })
		})
	}
}

// byEngine picks the expectation for eng.
func byEngine[T any](eng Engine, classic, direct T) T {
	if eng == EngineClassic {
		return classic
	}
	return direct
}

// variantNamed returns the engine variant called name.
func variantNamed(t *testing.T, name string) engineVariant {
	t.Helper()
	for _, v := range engines {
		if v.name == name {
			return v
		}
	}
	t.Fatalf("no engine variant %q", name)
	return engineVariant{}
}
