package listener

import (
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestDetermineResyncPeriod(t *testing.T) {
	for _, tc := range []struct {
		desired, check, want time.Duration
	}{
		{0, 0, 0},
		{0, time.Minute, 0},
		{time.Minute, 0, 0},
		{time.Second, time.Minute, time.Minute},
		{time.Hour, time.Minute, time.Hour},
		{time.Minute, time.Minute, time.Minute},
	} {
		if got := DetermineResyncPeriod(klog.Background(), tc.desired, tc.check); got != tc.want {
			t.Errorf("DetermineResyncPeriod(%v, %v) = %v, want %v", tc.desired, tc.check, got, tc.want)
		}
	}
}

// Sync notifications go only to listeners marked by the last ShouldResync,
// all listeners until the first call; the marks persist between calls.
func TestSyncNotificationsOnlyToMarkedListeners(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clk := clocktesting.NewFakeClock(start)
		p := NewProcessor(ProcessorOptions{Clock: clk})
		up := newUpstream("inf")
		r10, r30, rNever := &recorder{}, &recorder{}, &recorder{}
		mustBound(t, p, r10, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 10 * time.Second, ResyncPeriod: 10 * time.Second}, Options{Engine: eng})
		mustBound(t, p, r30, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 30 * time.Second, ResyncPeriod: 30 * time.Second}, Options{Engine: eng})
		mustListener(t, p, rNever, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()

		step := 0
		sync := func() {
			step++
			p.Distribute(NewUpdate(step, step), true)
		}
		sync() // 1: everyone is marked initially
		if p.ShouldResync() {
			t.Fatal("ShouldResync() at start = true, want false")
		}
		sync()                                            // 2: nobody
		p.Distribute(NewUpdate("x", "y"), false)          // non-sync: everybody
		for _, adv := range []time.Duration{10, 10, 10} { // t=10s, 20s, 30s
			clk.Step(adv * time.Second)
			if !p.ShouldResync() {
				t.Fatalf("ShouldResync() at %v = false, want true", clk.Since(start))
			}
			sync() // 3, 4, 5
		}
		clk.Step(5 * time.Second) // t=35s: nothing due
		if p.ShouldResync() {
			t.Fatal("ShouldResync() at 35s = true, want false")
		}
		sync() // 6: nobody
		synctest.Wait()

		wantCalls(t, "10s", r10.got(), []string{"update 1 1", "update x y", "update 3 3", "update 4 4", "update 5 5"})
		wantCalls(t, "30s", r30.got(), []string{"update 1 1", "update x y", "update 5 5"})
		wantCalls(t, "never", rNever.got(), []string{"update 1 1", "update x y"})
	})
}

func TestResyncCheckPeriodChanged(t *testing.T) {
	p := NewProcessor(ProcessorOptions{})
	up := newUpstream("inf")
	a := mustBound(t, p, &recorder{}, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: 5 * time.Second, ResyncPeriod: 5 * time.Second}, Options{})
	b := mustBound(t, p, &recorder{}, Binding{UpstreamHasSynced: up, RequestedResyncPeriod: time.Minute, ResyncPeriod: time.Minute}, Options{})
	c := mustListener(t, p, &recorder{}, up, Options{})
	p.ResyncCheckPeriodChanged(klog.Background(), 10*time.Second)
	for _, tc := range []struct {
		l    *Listener
		want time.Duration
	}{{a, 10 * time.Second}, {b, time.Minute}, {c, 0}} {
		if got := tc.l.ResyncPeriod(); got != tc.want {
			t.Errorf("ResyncPeriod() = %v, want %v", got, tc.want)
		}
	}
	if got := a.RequestedResyncPeriod(); got != 5*time.Second {
		t.Errorf("RequestedResyncPeriod() = %v, want 5s", got)
	}
	p.ResyncCheckPeriodChanged(klog.Background(), 0)
	if got := b.ResyncPeriod(); got != 0 {
		t.Errorf("with check period 0, ResyncPeriod() = %v, want 0", got)
	}
	// Not running: removing closes the shutdown channels; nothing to wait for.
	for _, l := range []*Listener{a, b, c} {
		if err := p.RemoveListener(l); err != nil {
			t.Fatal(err)
		}
	}
}

func TestShouldResyncBoundary(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	p := NewProcessor(ProcessorOptions{Clock: clk})
	l, err := p.NewListener(&recorder{}, Binding{ResyncPeriod: time.Minute, UpstreamHasSynced: newUpstream("x")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.shouldResync(start.Add(time.Minute - time.Nanosecond)) {
		t.Error("due before the period elapsed")
	}
	if !l.shouldResync(start.Add(time.Minute)) {
		t.Error("not due exactly at the period")
	}
	l.determineNextResync(start.Add(time.Minute))
	if l.shouldResync(start.Add(time.Minute)) {
		t.Error("still due after rescheduling")
	}
}
