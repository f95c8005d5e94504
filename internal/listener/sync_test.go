package listener

import (
	"testing"
	"testing/synctest"
)

// A registration is synced once the informer has synced and the last
// initial-list OnAdd has returned, not before.
func TestHasSyncedNeedsUpstreamAndLastInitialAdd(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		g := newGate("add c true")
		r := &recorder{before: g.wait}
		l := mustListener(t, p, r, up, Options{Engine: eng, Name: "h"})
		if got, want := l.HasSyncedChecker().Name(), "inf + event handler h"; got != want {
			t.Fatalf("checker name = %q, want %q", got, want)
		}
		stop := runProcessor(p)
		defer stop()

		for _, o := range []string{"a", "b", "c"} {
			p.Distribute(NewAdd(o, true), false)
		}
		p.Distribute(NewAdd("d", false), false) // not initial: not counted
		synctest.Wait()
		if l.HasSynced() {
			t.Fatal("synced before upstream synced")
		}
		up.sync()
		synctest.Wait()
		if l.HasSynced() || isClosed(l.HasSyncedChecker().Done()) {
			t.Fatal("synced while the last initial OnAdd is still running")
		}
		g.release("add c true")
		synctest.Wait()
		if !l.HasSynced() || !isClosed(l.HasSyncedChecker().Done()) {
			t.Fatal("not synced after upstream synced and every initial add returned")
		}
		wantCalls(t, "handler", r.got(), []string{"add a true", "add b true", "add c true", "add d false"})
	})
}

func TestHasSyncedUpstreamLast(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		l := mustListener(t, p, &recorder{}, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd("a", true), false)
		synctest.Wait()
		if l.HasSynced() {
			t.Fatal("synced before upstream")
		}
		up.sync()
		synctest.Wait()
		if !l.HasSynced() {
			t.Fatal("not synced after upstream")
		}
	})
}

// A listener added to a running processor is synced only after its replay,
// and only once the informer starts its sync watch.
func TestLateListenerReplay(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		early := mustListener(t, p, &recorder{}, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()
		up.sync()
		synctest.Wait()
		if !early.HasSynced() {
			t.Fatal("early listener with empty list not synced")
		}

		g := newGate("add y true")
		r := &recorder{before: g.wait}
		late, err := p.NewListener(r, Binding{UpstreamHasSynced: up}, Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		started, err := p.AddListener(late)
		if err != nil || !started {
			t.Fatalf("AddListener = %v, %v; want true, nil", started, err)
		}
		late.add(NewAdd("x", true))
		late.add(NewAdd("y", true))
		synctest.Wait()
		if late.HasSynced() {
			t.Fatal("late listener synced before StartWatchSynced")
		}
		p.StartWatchSynced(late)
		synctest.Wait()
		if late.HasSynced() {
			t.Fatal("late listener synced while its replay is being handled")
		}
		g.release("add y true")
		synctest.Wait()
		if !late.HasSynced() {
			t.Fatal("late listener not synced after its replay")
		}
		p.Distribute(NewUpdate("x", "x2"), false)
		synctest.Wait()
		wantCalls(t, "late", r.got(), []string{"add x true", "add y true", "update x x2"})
	})
}

// A late listener with nothing to replay syncs as soon as its watch starts.
func TestLateListenerEmptyReplay(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		stop := runProcessor(p)
		defer stop()
		up.sync()
		l := mustListener(t, p, &recorder{}, up, Options{Engine: eng})
		p.StartWatchSynced(l)
		synctest.Wait()
		if !l.HasSynced() {
			t.Fatal("not synced")
		}
	})
}
