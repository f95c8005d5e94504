package listener

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clocktesting "k8s.io/utils/clock/testing"
)

// panicky records calls and panics on the object "boom".
type panicky struct{ recorder }

func (p *panicky) OnAdd(obj any, initial bool) {
	if obj == "boom" {
		panic("handler failed")
	}
	p.recorder.OnAdd(obj, initial)
}

// With crashes disabled, a panicking call is skipped, the next notification
// waits one second of the listener's clock, and an initial-list add that
// panicked does not count as finished (as in client-go).
func TestPanicSkipsItemAndWaits(t *testing.T) {
	defer func(old bool) { utilruntime.ReallyCrash = old }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = false
	eachEngine(t, func(t *testing.T, eng Engine) {
		clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		p := NewProcessor(ProcessorOptions{Clock: clk})
		h := &panicky{}
		l := mustListener(t, p, h, newUpstream("inf"), Options{Engine: eng})
		stop := runProcessor(p)
		defer stop()

		p.Distribute(NewAdd("boom", false), false)
		p.Distribute(NewAdd("next", false), false)
		synctest.Wait()
		wantCalls(t, "after panic", h.got(), nil)
		clk.Step(time.Second - time.Nanosecond)
		synctest.Wait()
		wantCalls(t, "just before 1s", h.got(), nil)
		clk.Step(time.Nanosecond)
		synctest.Wait()
		wantCalls(t, "after 1s", h.got(), []string{"add next false"})
		if s := l.Stats(); s.Panics != 1 || s.Delivered != 2 {
			t.Fatalf("stats = %+v, want Panics 1, Delivered 2", s)
		}
		// No wait after a call that did not panic.
		p.Distribute(NewAdd("third", false), false)
		synctest.Wait()
		wantCalls(t, "third", h.got(), []string{"add next false", "add third false"})
	})
}

// By default a handler panic crashes the process. The test re-runs itself
// in a subprocess that distributes to a panicking handler.
func TestPanicCrashesByDefault(t *testing.T) {
	if e := os.Getenv("LISTENER_CRASH_CHILD"); e != "" {
		v := variantNamed(t, e)
		eng := v.eng
		p := NewProcessor(ProcessorOptions{})
		mustListener(t, p, &panicky{}, newUpstream("inf"), Options{Engine: eng})
		go p.Run(t.Context())
		p.Distribute(NewAdd("boom", false), false)
		select {} // the handler's panic ends the process
	}
	for _, v := range engines {
		t.Run(v.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPanicCrashesByDefault$")
			cmd.Env = append(os.Environ(), "LISTENER_CRASH_CHILD="+v.name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("child exited cleanly; output:\n%s", out)
			}
			if !strings.Contains(string(out), "panic: handler failed") {
				t.Fatalf("child did not crash with the handler's panic; output:\n%s", out)
			}
		})
	}
}
