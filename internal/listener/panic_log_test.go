package listener

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// alwaysPanics is a handler whose every call panics.
type alwaysPanics struct{}

func (alwaysPanics) OnAdd(any, bool)   { panic("handler failed") }
func (alwaysPanics) OnUpdate(any, any) { panic("handler failed") }
func (alwaysPanics) OnDelete(any)      { panic("handler failed") }

const (
	msgPanic        = "ERROR Recovered from a panic in an event handler err=panic: handler failed handler=p"
	msgPanicSummary = "ERROR Recovered from more panics in an event handler, not logged one by one err=panic: handler failed handler=p"
)

// splitPanicLogs returns the panic log lines with their stack cut off, and
// how many of them had a stack.
func splitPanicLogs(lines []string) (msgs []string, stacks int) {
	for _, l := range lines {
		if i := strings.Index(l, " stack="); i >= 0 {
			l = l[:i]
			stacks++
		}
		msgs = append(msgs, l)
	}
	return msgs, stacks
}

// A handler that panics on every call under RecoverPanics logs the first
// panic with its stack, then at most one summary with the count every 10 s;
// the panic counters count every call.
func TestRecoverPanicsLogIsRateLimited(t *testing.T) {
	for _, workers := range []int{0, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := NewProcessor(ProcessorOptions{})
				logs := &logRecorder{}
				rec := newRecProvider()
				l := mustBound(t, p, alwaysPanics{}, Binding{UpstreamHasSynced: newUpstream("inf"), Metrics: rec, MetricsInformer: "pods"},
					Options{Name: "p", Logger: logs.logger(), RecoverPanics: true, Workers: workers, KeyFunc: strKey, BacklogWarnThresholds: []int{-1}})
				stop := runProcessor(p)
				defer stop()
				id := testID
				id.Handler = "p"

				for i := range 1000 {
					p.Distribute(NewAdd(fmt.Sprint("o", i), false), false)
				}
				synctest.Wait()
				msgs, stacks := splitPanicLogs(logs.got())
				if len(msgs) != 1 || stacks != 1 || !strings.HasPrefix(msgs[0], msgPanic+" notification=add key=o") {
					t.Fatalf("after 1000 panics at once: %d lines, %d stacks: %q", len(msgs), stacks, msgs[:min(len(msgs), 3)])
				}
				time.Sleep(9 * time.Second)
				synctest.Wait()
				if got := logs.got(); len(got) != 1 {
					t.Fatalf("within 10 s of the first: %d lines", len(got))
				}
				time.Sleep(time.Second)
				synctest.Wait()
				msgs, stacks = splitPanicLogs(logs.got())
				if len(msgs) != 2 || stacks != 1 || !strings.HasPrefix(msgs[1], msgPanicSummary+" panics=999 notification=add key=o") {
					t.Fatalf("10 s after the first: %d lines, %d stacks: %q", len(msgs), stacks, msgs)
				}

				// One panic a second for 25 s, from 10.5 s on (off the
				// summaries' ticks): summaries at 20 s, 30 s and 40 s.
				time.Sleep(500 * time.Millisecond)
				for range 25 {
					p.Distribute(NewUpdate("x", "y"), false)
					synctest.Wait()
					time.Sleep(time.Second)
				}
				time.Sleep(10 * time.Second)
				synctest.Wait()
				msgs, stacks = splitPanicLogs(logs.got())
				want := []string{
					msgPanicSummary + " panics=10 notification=update key=y",
					msgPanicSummary + " panics=10 notification=update key=y",
					msgPanicSummary + " panics=5 notification=update key=y",
				}
				if len(msgs) != 5 || stacks != 1 {
					t.Fatalf("after 25 more: %d lines, %d stacks, want 5 and 1: %q", len(msgs), stacks, msgs)
				}
				wantCalls(t, "summaries", msgs[2:], want)
				if s := l.Stats(); s.Panics != 1025 || s.Delivered != 1025 {
					t.Fatalf("stats = %+v, want Panics and Delivered 1025", s)
				}
				if got, _ := rec.snapshot(id); !strings.Contains(got, " panics=1025 ") {
					t.Fatalf("metrics %s, want panics=1025", got)
				}

				// After 10 quiet seconds a panic is logged with its stack
				// again.
				time.Sleep(10 * time.Second)
				p.Distribute(NewDelete("z"), false)
				synctest.Wait()
				msgs, stacks = splitPanicLogs(logs.got())
				if len(msgs) != 6 || stacks != 2 || msgs[5] != msgPanic+" notification=delete key=z" {
					t.Fatalf("after a quiet spell: %d lines, %d stacks: %q", len(msgs), stacks, msgs)
				}
			})
		})
	}
}

// Panics not yet summarised when the listener is removed are summarised
// then, so the log accounts for every panic.
func TestRecoverPanicsSummaryOnRemoval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		logs := &logRecorder{}
		l := mustListener(t, p, alwaysPanics{}, newUpstream("inf"), Options{Name: "p", Logger: logs.logger(), RecoverPanics: true, KeyFunc: strKey})
		stop := runProcessor(p)
		defer stop()
		for i := range 3 {
			p.Distribute(NewAdd(fmt.Sprint("o", i), false), false)
		}
		synctest.Wait()
		if err := p.RemoveListener(l); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		msgs, stacks := splitPanicLogs(logs.got())
		wantCalls(t, "logs", msgs, []string{
			msgPanic + " notification=add key=o0",
			msgPanicSummary + " panics=2 notification=add key=o2",
		})
		if stacks != 1 {
			t.Fatalf("%d stacks, want 1", stacks)
		}
	})
}
