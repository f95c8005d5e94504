package listener

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// logRecorder is a logr sink that records each message as
// "msg k1=v1 k2=v2".
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

type recSink struct{ r *logRecorder }

func (s recSink) Init(logr.RuntimeInfo)  {}
func (s recSink) Enabled(level int) bool { return true }
func (s recSink) Info(level int, msg string, kv ...any) {
	s.r.add(msg, kv)
}
func (s recSink) Error(err error, msg string, kv ...any) {
	s.r.add("ERROR "+msg, append([]any{"err", err}, kv...))
}
func (s recSink) WithValues(kv ...any) logr.LogSink { return s }
func (s recSink) WithName(string) logr.LogSink      { return s }

func (r *logRecorder) add(msg string, kv []any) {
	var b strings.Builder
	b.WriteString(msg)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, " %v=%v", kv[i], kv[i+1])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, b.String())
}

func (r *logRecorder) logger() klog.Logger { return logr.New(recSink{r}) }

func (r *logRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

func discardLogger() klog.Logger { return logr.Discard() }

const (
	msgCrossed = "Warning: event handler is falling behind: pending notifications crossed a threshold handler=slow"
	msgDrained = "Event handler caught up: pending notifications dropped below half the lowest threshold handler=slow"
	msgSlow    = "Warning: slow event handler call handler=slow"
)

// Backlog and slow-call messages: one per threshold crossing, one on
// draining, one per slow call, each rate-limited per listener with the
// left-out ones counted in the next message.
func TestBacklogAndSlowCallLogs(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng Engine) {
		p := NewProcessor(ProcessorOptions{})
		logs := &logRecorder{}
		g := newGate("add a false", "add g false", "add k false")
		mustListener(t, p, &recorder{before: g.wait}, newUpstream("inf"), Options{
			Engine: eng, Name: "slow", Logger: logs.logger(),
			BacklogWarnThresholds: []int{4, 2, 4}, SlowHandlerThreshold: time.Second,
			KeyFunc: func(obj any) (string, error) { return fmt.Sprint(obj), nil },
		})
		stop := runProcessor(p)
		defer stop()
		// stall distributes head (the handler blocks on it) and then rest,
		// waits d and lets head's call return.
		stall := func(head string, rest []string, d time.Duration) {
			p.Distribute(NewAdd(head, false), false)
			synctest.Wait()
			for _, o := range rest {
				p.Distribute(NewAdd(o, false), false)
			}
			synctest.Wait()
			time.Sleep(d)
			g.release("add " + head + " false")
			synctest.Wait()
		}

		stall("a", []string{"b", "c", "d", "e", "f"}, 1500*time.Millisecond)
		stall("g", []string{"h", "i"}, 1500*time.Millisecond) // all within 10 s: suppressed
		time.Sleep(11 * time.Second)
		stall("k", []string{"l", "m"}, 1500*time.Millisecond)

		wantCalls(t, "logs", logs.got(), []string{
			msgCrossed + " pending=2 threshold=2",
			msgCrossed + " pending=4 threshold=4",
			msgSlow + " notification=add key=a duration=1.5s threshold=1s",
			msgDrained + " pending=0 threshold=2",
			msgCrossed + " pending=2 threshold=2 suppressed=2",
			msgSlow + " notification=add key=k duration=1.5s threshold=1s suppressed=1",
			msgDrained + " pending=0 threshold=2",
		})
	})
}

// Negative values turn the messages off; 0 is an error.
func TestLogOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		if err := (&Options{BacklogWarnThresholds: []int{10, 0}}).Validate(); err == nil {
			t.Fatal("Validate with a 0 threshold: no error")
		}
		logs := &logRecorder{}
		g := newGate("add a false")
		mustListener(t, p, &recorder{before: g.wait}, up, Options{
			Name: "slow", Logger: logs.logger(), BacklogWarnThresholds: []int{-1}, SlowHandlerThreshold: -1,
		})
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd("a", false), false)
		for i := range 3000 {
			p.Distribute(NewAdd(fmt.Sprint(i), false), false)
		}
		synctest.Wait()
		time.Sleep(time.Hour)
		g.release("add a false")
		synctest.Wait()
		if got := logs.got(); len(got) != 0 {
			t.Fatalf("logs with messages off: %q", got)
		}
	})
}

// The default thresholds warn at 1000 pending notifications.
func TestBacklogDefaultThreshold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		logs := &logRecorder{}
		g := newGate("add 0 false")
		mustListener(t, p, &recorder{before: g.wait}, newUpstream("inf"), Options{Name: "slow", Logger: logs.logger()})
		stop := runProcessor(p)
		defer stop()
		for i := range 1001 {
			p.Distribute(NewAdd(i, false), false)
		}
		synctest.Wait()
		wantCalls(t, "logs", logs.got(), []string{msgCrossed + " pending=1000 threshold=1000"})
		g.release("add 0 false")
		synctest.Wait()
		wantCalls(t, "logs", logs.got(), []string{
			msgCrossed + " pending=1000 threshold=1000",
			msgDrained + " pending=499 threshold=1000",
		})
	})
}
