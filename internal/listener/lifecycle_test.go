package listener

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
)

// Removing a running listener drops what is pending; its shutdown channel
// closes once the handler call in progress returns.
func TestRemoveRunningListener(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		g := newGate("add a false")
		r := &recorder{before: g.wait}
		other := &recorder{}
		l := mustListener(t, p, r, up, Options{Engine: eng})
		mustListener(t, p, other, up, Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()

		for _, o := range []string{"a", "b", "c", "d"} {
			p.Distribute(NewAdd(o, false), false)
		}
		synctest.Wait()
		if err := p.RemoveListener(l); err != nil {
			t.Fatalf("RemoveListener: %v", err)
		}
		synctest.Wait()
		if isClosed(l.ShutdownChan()) {
			t.Fatal("shutdown channel closed while the handler is still running")
		}
		if s := l.Stats(); s.Pending != 0 {
			t.Fatalf("Pending after removal = %d, want 0", s.Pending)
		}
		p.Distribute(NewAdd("e", false), false) // not delivered to l
		l.add(NewAdd("f", false))               // returns at once on a removed listener
		g.release("add a false")
		synctest.Wait()
		if !isClosed(l.ShutdownChan()) {
			t.Fatal("shutdown channel not closed after the handler returned")
		}
		wantCalls(t, "removed", r.got(), []string{"add a false"})
		wantCalls(t, "other", other.got(), []string{"add a false", "add b false", "add c false", "add d false", "add e false"})
		if err := p.RemoveListener(l); err != nil {
			t.Fatalf("second RemoveListener: %v", err)
		}
	})
}

func TestRemoveBeforeStart(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		r := &recorder{}
		l := mustListener(t, p, r, up, Options{Engine: eng})
		if err := p.RemoveListener(l); err != nil {
			t.Fatal(err)
		}
		if !isClosed(l.ShutdownChan()) {
			t.Fatal("shutdown channel of a listener removed before start is open")
		}
		p.Distribute(NewAdd("a", false), false) // no listeners: does not wait for Run
		stop := runProcessor(p)
		p.Distribute(NewAdd("b", false), false)
		synctest.Wait()
		stop()
		wantCalls(t, "removed", r.got(), nil)
	})
}

func TestRemoveListenerHandles(t *testing.T) {
	p := NewProcessor(ProcessorOptions{})
	err := p.RemoveListener("not a listener")
	if err == nil || !strings.Contains(err.Error(), "invalid key type string") {
		t.Fatalf("RemoveListener(string) = %v, want invalid key type error", err)
	}
	other := NewProcessor(ProcessorOptions{})
	foreign, err := other.NewListener(&recorder{}, Binding{UpstreamHasSynced: newUpstream("x")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.RemoveListener(foreign); err != nil {
		t.Fatalf("RemoveListener(unknown) = %v, want nil", err)
	}
	if err := p.RemoveListener((*Listener)(nil)); err != nil {
		t.Fatalf("RemoveListener(nil *Listener) = %v, want nil", err)
	}
}

// Distribute waits for Run while listeners exist; Run then delivers.
func TestDistributeBeforeRunWaits(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		r := &recorder{}
		mustListener(t, p, r, newUpstream("inf"), Options{Engine: eng})
		returned := make(chan struct{})
		go func() {
			p.Distribute(NewAdd("a", false), false)
			close(returned)
		}()
		synctest.Wait()
		if isClosed(returned) {
			t.Fatal("Distribute returned before Run")
		}
		stop := runProcessor(p)
		defer stop()
		synctest.Wait()
		if !isClosed(returned) {
			t.Fatal("Distribute still waiting after Run")
		}
		wantCalls(t, "handler", r.got(), []string{"add a false"})
	})
}

// A Distribute waiting for Run returns when the processor is stopped
// without ever having run its listeners.
func TestDistributeWaitingReleasedByStop(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		mustListener(t, p, &recorder{}, newUpstream("inf"), Options{Engine: eng})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		go p.Distribute(NewAdd("a", false), false)
		p.Run(ctx) // starts and at once stops the listeners
		synctest.Wait()
	})
}

// Stopping the processor stops every listener, drops pending notifications,
// closes every shutdown channel and leaves no goroutine behind (synctest.Test
// fails if one is left).
func TestStop(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		g := newGate("add 0 false")
		slow := &recorder{before: g.wait}
		fast := &recorder{}
		ls := mustListener(t, p, slow, up, Options{Engine: eng})
		lf := mustListener(t, p, fast, up, Options{Engine: eng})
		ctx, cancel := context.WithCancel(context.Background())
		runDone := make(chan struct{})
		go func() {
			p.Run(ctx)
			close(runDone)
		}()
		for i := range 10 {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		cancel()
		synctest.Wait()
		if isClosed(runDone) {
			t.Fatal("Run returned while a handler is still running")
		}
		if !isClosed(lf.ShutdownChan()) {
			t.Fatal("idle listener not shut down")
		}
		g.release("add 0 false")
		<-runDone
		if !isClosed(ls.ShutdownChan()) {
			t.Fatal("slow listener not shut down after Run returned")
		}
		wantCalls(t, "slow", slow.got(), []string{"add 0 false"})
		if got := len(fast.got()); got != 10 {
			t.Fatalf("fast got %d calls, want 10", got)
		}
		// After the stop the processor has no listeners: Distribute returns.
		p.Distribute(NewAdd("late", false), false)
		if err := p.RemoveListener(ls); err != nil {
			t.Fatal(err)
		}
	})
}
