package ring

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kfanout/fanout/contrib/sharding/internal/leasetest"
)

// ledger records what fakeTargets do and fails the test the moment two
// targets deliver one range, or a target starts a range another one's
// handlers are still busy with.
type ledger struct {
	t      *testing.T
	mu     sync.Mutex
	busy   map[int]string // range -> target delivering or draining it
	events []string
}

func newLedger(t *testing.T) *ledger { return &ledger{t: t, busy: map[int]string{}} }

func (l *ledger) record(format string, args ...any) {
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *ledger) eventLog() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// fakeTarget is a Target whose graceful stops block until release is
// closed (nil: they return at once).
type fakeTarget struct {
	name    string
	ledger  *ledger
	release chan struct{}

	onStart chan int // if set, gets every started range
	onStop  chan int // if set, gets every range whose stop begins

	mu      sync.Mutex
	started map[int]bool
}

func newFakeTarget(name string, l *ledger) *fakeTarget {
	return &fakeTarget{name: name, ledger: l, started: map[int]bool{}}
}

func (f *fakeTarget) StartRange(_ context.Context, r Range) {
	l := f.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	if other, ok := l.busy[r.Index]; ok {
		l.t.Errorf("%s starts range %d while %s is busy with it", f.name, r.Index, other)
	}
	l.busy[r.Index] = f.name
	l.record("%s start %d", f.name, r.Index)
	f.mu.Lock()
	f.started[r.Index] = true
	f.mu.Unlock()
	if f.onStart != nil {
		f.onStart <- r.Index
	}
}

func (f *fakeTarget) StopRange(ctx context.Context, r Range, graceful bool) {
	f.mu.Lock()
	was := f.started[r.Index]
	delete(f.started, r.Index)
	release := f.release
	f.mu.Unlock()
	if !was {
		return
	}
	f.ledger.mu.Lock()
	f.ledger.record("%s stop %d graceful=%v", f.name, r.Index, graceful)
	f.ledger.mu.Unlock()
	if f.onStop != nil {
		f.onStop <- r.Index
	}
	if graceful && release != nil {
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
	f.ledger.mu.Lock()
	defer f.ledger.mu.Unlock()
	f.ledger.record("%s stopped %d", f.name, r.Index)
	if f.ledger.busy[r.Index] == f.name {
		delete(f.ledger.busy, r.Index)
	}
}

func (f *fakeTarget) owned() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	for i := range f.started {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// waitDrains blocks until n graceful stops of c have returned, leaving them
// for the next round to release.
func waitDrains(c *Coordinator, n int) {
	got := make([]int, 0, n)
	for range n {
		got = append(got, <-c.drainDone)
	}
	for _, i := range got {
		c.drainDone <- i
	}
}

// recordingMetrics keeps the coordinator's figures.
type recordingMetrics struct {
	NoMetrics
	mu        sync.Mutex
	owned     []int
	handovers map[int]time.Duration
}

func (m *recordingMetrics) OwnedRanges(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.owned = append(m.owned, n)
}

func (m *recordingMetrics) Handover(r Range, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.handovers == nil {
		m.handovers = map[int]time.Duration{}
	}
	m.handovers[r.Index] = d
}

func newTestCoordinator(t *testing.T, api *leasetest.API, clk *clocktesting.FakeClock, id string, target Target) *Coordinator {
	t.Helper()
	return newTestCoordinatorWithMetrics(t, api, clk, id, target, nil)
}

func newTestCoordinatorWithMetrics(t *testing.T, api *leasetest.API, clk *clocktesting.FakeClock, id string, target Target, m Metrics) *Coordinator {
	t.Helper()
	c, err := NewCoordinator(testConfig(api, clk, id, 8), target, CoordinatorOptions{Metrics: m})
	require.NoError(t, err)
	return c
}

// TestCoordinatorHandoverOrder: a second replica joins; the first stops
// delivering the ranges it gives up, its handlers finish, it releases the
// claims, and only then the second acquires and starts them. The ledger
// fails the test if the two ever overlap on a range.
func TestCoordinatorHandoverOrder(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	l := newLedger(t)
	ta, tb := newFakeTarget("a", l), newFakeTarget("b", l)
	ta.release = make(chan struct{})
	ta.onStop = make(chan int, 8)
	metrics := &recordingMetrics{}
	a := newTestCoordinatorWithMetrics(t, api, clk, "a", ta, metrics)
	b := newTestCoordinator(t, api, clk, "b", tb)

	a.Round(ctx, false)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, ta.owned())

	b.Round(ctx, false) // b joins, wants its share, finds the claims held
	assert.Empty(t, tb.owned())
	wantB := Owned("b", []string{"a", "b"}, 8)
	require.NotEmpty(t, wantB)

	clk.Step(2 * time.Second)
	a.Round(ctx, false) // a sees b, starts handing wantB over
	for range wantB {
		<-ta.onStop
	}
	assert.Equal(t, Owned("a", []string{"a", "b"}, 8), ta.owned())
	for range 3 { // a's handlers take 6 s; a keeps the claims meanwhile
		clk.Step(2 * time.Second)
		b.Round(ctx, false)
		assert.Empty(t, tb.owned(), "b must wait for a's handlers")
		a.Round(ctx, false)
	}
	close(ta.release)
	waitDrains(a, len(wantB))
	b.Round(ctx, false)
	assert.Empty(t, tb.owned(), "a has not released yet")
	a.Round(ctx, false) // releases
	b.Round(ctx, false) // acquires
	assert.Equal(t, wantB, tb.owned())

	// Handover took the 6 s of a's handlers, on a's fake clock.
	metrics.mu.Lock()
	assert.Equal(t, 8, metrics.owned[0])
	assert.Equal(t, 8-len(wantB), metrics.owned[len(metrics.owned)-1])
	for _, r := range wantB {
		assert.Equal(t, 6*time.Second, metrics.handovers[r], "range %d", r)
	}
	metrics.mu.Unlock()

	log := l.eventLog()
	for _, r := range wantB {
		stop := slices.Index(log, fmt.Sprintf("a stop %d graceful=true", r))
		stopped := slices.Index(log, fmt.Sprintf("a stopped %d", r))
		start := slices.Index(log, fmt.Sprintf("b start %d", r))
		require.True(t, stop >= 0 && stop < stopped && stopped < start, "range %d order in %v", r, log)
	}
}

// TestCoordinatorTakeoverAfterDeath: a replica that stops (dies) loses its
// ranges to the other once its claims expire: within LeaseDuration plus one
// RetryPeriod of its last renewal (b sees the renewal at most one retry
// period late and wakes up when the claims expire), not before
// LeaseDuration.
// newDeathRing returns coordinators a and b on 8 ranges of one ring, with
// their targets and ledger. Their lease of 9 s is not a multiple of the
// 2 s retry period, so claims expire between two of b's regular rounds.
func newDeathRing(t *testing.T, api *leasetest.API, clk *clocktesting.FakeClock) (a, b *Coordinator, ta, tb *fakeTarget, l *ledger) {
	l = newLedger(t)
	ta, tb = newFakeTarget("a", l), newFakeTarget("b", l)
	newCoordinator := func(id string, target Target) *Coordinator {
		cfg := testConfig(api, clk, id, 8)
		cfg.LeaseDuration, cfg.RenewDeadline = 9*time.Second, 4*time.Second
		c, err := NewCoordinator(cfg, target, CoordinatorOptions{})
		require.NoError(t, err)
		return c
	}
	return newCoordinator("a", ta), newCoordinator("b", tb), ta, tb, l
}

// takeoverAfter runs b's rounds as Run would (settle is called after each
// clock step) until b holds all 8 ranges, and returns the time from
// lastRenew until then.
func takeoverAfter(t *testing.T, b *Coordinator, tb *fakeTarget, clk *clocktesting.FakeClock, lastRenew time.Time, settle func()) time.Duration {
	t.Helper()
	for clk.Since(lastRenew) <= 20*time.Second {
		clk.Step(b.nextWait())
		settle()
		b.Round(t.Context(), false)
		if len(tb.owned()) == 8 {
			return clk.Since(lastRenew)
		}
		assert.Less(t, len(tb.owned()), 8)
	}
	t.Fatal("b never took over")
	return 0
}

func TestCoordinatorTakeoverAfterDeath(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	a, b, ta, tb, l := newDeathRing(t, api, clk)

	a.Round(ctx, false)
	b.Round(ctx, false)
	clk.Step(time.Second)
	a.Round(ctx, false) // a's last renewal, then a dies (its target keeps "delivering" in the ledger)
	lastRenew := clk.Now()
	a.target.(*fakeTarget).mu.Lock()
	aOwned := len(ta.started)
	a.target.(*fakeTarget).mu.Unlock()
	require.Positive(t, aOwned)
	// The dead replica's process is gone: clear it from the ledger so only
	// ordering against the live replica is checked from here.
	l.mu.Lock()
	clear(l.busy)
	l.mu.Unlock()

	d := takeoverAfter(t, b, tb, clk, lastRenew, func() {})
	assert.GreaterOrEqual(t, d, 9*time.Second)
	assert.LessOrEqual(t, d, 9*time.Second+2*time.Second, "lease duration + one retry period")
}

// TestCoordinatorStopsAtRenewDeadline: when the apiserver stops taking
// writes, a replica stops delivering its ranges by its renew deadline
// plus the round interval, before anyone could take them over.
func TestCoordinatorStopsAtRenewDeadline(t *testing.T) {
	ctx := t.Context()
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	l := newLedger(t)
	ta := newFakeTarget("a", l)
	a := newTestCoordinator(t, api, clk, "a", ta)
	a.Round(ctx, false)
	lastRenew := clk.Now()
	require.Len(t, ta.owned(), 8)

	api.SetFailWrites(true)
	var stopped time.Time
	for clk.Since(lastRenew) < 10*time.Second {
		clk.Step(a.nextWait())
		a.Round(ctx, false)
		if len(ta.owned()) == 0 {
			stopped = clk.Now()
			break
		}
	}
	require.False(t, stopped.IsZero(), "a still delivers after the lease duration")
	assert.Equal(t, lastRenew.Add(5*time.Second), stopped, "stops at the renew deadline")
	assert.Contains(t, l.eventLog(), "a stop 0 graceful=false")

	// Once writes work again, a takes its ranges back (the claims say a).
	api.SetFailWrites(false)
	clk.Step(10 * time.Second)
	a.Round(ctx, false)
	assert.Len(t, ta.owned(), 8)
}

// TestCoordinatorRunLeaves: cancelling Run hands every range over
// gracefully, releases the claims and deletes the membership Lease.
func TestCoordinatorRunLeaves(t *testing.T) {
	api := leasetest.NewAPI()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	l := newLedger(t)
	ta := newFakeTarget("a", l)
	ta.onStart = make(chan int, 8)
	a := newTestCoordinator(t, api, clk, "a", ta)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Run(ctx)
	}()
	for range 8 {
		<-ta.onStart
	}
	cancel()
	<-done
	assert.Empty(t, ta.owned())
	leases, err := api.CoordinationV1().Leases("ns").List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, lease := range leases.Items {
		assert.Equal(t, RoleClaim, lease.Labels[LabelRole], "member lease %s left behind", lease.Name)
		assert.Empty(t, holder(&lease), "claim %s not released", lease.Name)
	}
	assert.Len(t, leases.Items, 8)
}
