package listener

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/internal/syncbuf"
)

// slowOn is a handler whose OnUpdate for newObj == slow sleeps for 150ms
// (fake time in the bubble); every call first waits for release.
type slowOn struct {
	slow    string
	release chan struct{}
	calls   int
}

func (h *slowOn) OnAdd(any, bool) {}
func (h *slowOn) OnUpdate(_, newObj any) {
	<-h.release
	h.calls++
	if newObj == h.slow {
		time.Sleep(150 * time.Millisecond)
	}
}
func (h *slowOn) OnDelete(any) {}

// TestBacklogTraceLogsOnlySlowCalls checks the "processorListener handler"
// trace (logged at verbosity 2, as client-go's): with more than 1024
// notifications pending, a handler call of 150ms is logged once, and the
// fast calls around it are not.
func TestBacklogTraceLogsOnlySlowCalls(t *testing.T) {
	// Traces are logged at verbosity 2, as client-go's.
	var fs flag.FlagSet
	klog.InitFlags(&fs)
	if err := fs.Set("v", "2"); err != nil {
		t.Fatal(err)
	}
	var out syncbuf.Buffer
	klog.LogToStderr(false)
	klog.SetOutput(&out)
	defer func() {
		klog.SetOutput(os.Stderr)
		klog.LogToStderr(true)
		_ = fs.Set("v", "0")
	}()
	for _, v := range engines {
		eng := v.eng
		t.Run(v.name, func(t *testing.T) {
			before := strings.Count(out.String(), "processorListener handler")
			synctest.Test(t, func(t *testing.T) {
				p := NewProcessor(ProcessorOptions{})
				up := newUpstream("up")
				up.sync()
				h := &slowOn{slow: "v5", release: make(chan struct{})}
				mustListener(t, p, h, up, Options{Engine: eng})
				stop := runProcessor(p)
				const n = 1200
				for i := range n {
					p.Distribute(NewUpdate("old", fmt.Sprintf("v%d", i)), false)
				}
				close(h.release)
				time.Sleep(time.Second) // lets the slow call's fake time pass
				synctest.Wait()
				if h.calls != n {
					t.Fatalf("handler calls = %d, want %d", h.calls, n)
				}
				stop()
			})
			klog.Flush()
			if got := strings.Count(out.String(), "processorListener handler") - before; got != 1 {
				t.Fatalf("%d traces logged, want 1:\n%s", got, out.String())
			}
		})
	}
}

// A traceGate follows klog's verbosity: closed below 2, open from 2, and a
// change takes effect within traceCheckEvery calls.
func TestTraceGateFollowsVerbosity(t *testing.T) {
	var fs flag.FlagSet
	klog.InitFlags(&fs)
	defer func() { _ = fs.Set("v", "0") }()
	if err := fs.Set("v", "1"); err != nil {
		t.Fatal(err)
	}
	var g traceGate
	for i := range traceCheckEvery {
		if g.enabled() {
			t.Fatalf("call %d: enabled at verbosity 1", i)
		}
	}
	if err := fs.Set("v", "2"); err != nil {
		t.Fatal(err)
	}
	if !g.enabled() {
		t.Fatal("not enabled at verbosity 2 after traceCheckEvery calls")
	}
	if err := fs.Set("v", "0"); err != nil {
		t.Fatal(err)
	}
	n := 0
	for g.enabled() {
		if n++; n > traceCheckEvery {
			t.Fatalf("still enabled %d calls after verbosity dropped to 0", n)
		}
	}
}
