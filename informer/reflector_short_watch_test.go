package informer

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// scriptedWatch is a watch.Interface whose channel holds the given events
// and is closed after them, unless open is set, when it stays open until
// Stop.
type scriptedWatch struct {
	ch   chan watch.Event
	once sync.Once
	open bool
}

func newScriptedWatch(open bool, events ...watch.Event) *scriptedWatch {
	w := &scriptedWatch{ch: make(chan watch.Event, len(events)), open: open}
	for _, e := range events {
		w.ch <- e
	}
	if !open {
		close(w.ch)
	}
	return w
}

func (w *scriptedWatch) Stop() {
	if w.open {
		w.once.Do(func() { close(w.ch) })
	}
}

func (w *scriptedWatch) ResultChan() <-chan watch.Event { return w.ch }

// watchCounter is a ListerWatcher whose list is empty at RV 1 and whose
// watches are made by next; it records the (fake) time of each watch call.
type watchCounter struct {
	mu    sync.Mutex
	times []time.Time
	next  func(n int) (watch.Interface, error)
}

// IsWatchListSemanticsUnSupported keeps the reflector on list+watch: the
// counter scripts plain watches only.
func (c *watchCounter) IsWatchListSemanticsUnSupported() bool { return true }

func (c *watchCounter) List(metav1.ListOptions) (runtime.Object, error) {
	return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
}

func (c *watchCounter) Watch(metav1.ListOptions) (watch.Interface, error) {
	c.mu.Lock()
	c.times = append(c.times, time.Now())
	n := len(c.times)
	c.mu.Unlock()
	return c.next(n)
}

func (c *watchCounter) calls() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.times...)
}

func podEvent(n int) watch.Event {
	return watch.Event{Type: watch.Added, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "p" + strconv.Itoa(n), ResourceVersion: strconv.Itoa(n + 1)}}}
}

// maxHotCalls bounds the watch calls a looping test lets through before it
// hands out a watch that stays open, so that a hot loop, which never lets
// the fake clock advance, ends and is reported instead of hanging.
const maxHotCalls = 1000

// runCountingReflector runs a reflector over c for d of fake time and
// returns the times of its watch calls.
func runCountingReflector(t *testing.T, c *watchCounter, d time.Duration) []time.Time {
	t.Helper()
	r := newTestReflector(c, &recordingStore{}, ReflectorOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	time.Sleep(d)
	cancel()
	<-done
	return c.calls()
}

func TestReflectorNilWatchWithoutErrorBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &watchCounter{next: func(n int) (watch.Interface, error) {
			if n > maxHotCalls {
				return newScriptedWatch(true), nil
			}
			return nil, nil
		}}
		calls := runCountingReflector(t, c, time.Minute)
		// Backoff from 800ms doubling to 30s: well under 20 calls a minute.
		if len(calls) > 20 {
			t.Fatalf("%d watch calls in a minute with a (nil, nil) watch, want at most 20", len(calls))
		}
		if len(calls) < 2 {
			t.Fatalf("%d watch calls, want the watch retried", len(calls))
		}
	})
}

func TestReflectorImmediatelyClosingWatchBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &watchCounter{next: func(n int) (watch.Interface, error) {
			if n > maxHotCalls {
				return newScriptedWatch(true), nil
			}
			return newScriptedWatch(false, podEvent(n)), nil
		}}
		calls := runCountingReflector(t, c, time.Minute)
		if len(calls) > 20 {
			t.Fatalf("%d watch calls in a minute with watches that close at once, want at most 20", len(calls))
		}
	})
}

func TestReflectorNormalWatchReconnectsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each watch delivers one event, runs 5s, then closes, as a server
		// timeout would: the next watch starts at the same instant.
		c := &watchCounter{}
		c.next = func(n int) (watch.Interface, error) {
			w := newScriptedWatch(true, podEvent(n))
			time.AfterFunc(5*time.Second, w.Stop)
			return w, nil
		}
		calls := runCountingReflector(t, c, 61*time.Second)
		if len(calls) != 13 {
			t.Fatalf("%d watch calls in 61s of 5s watches, want 13", len(calls))
		}
		for i := 1; i < len(calls); i++ {
			if gap := calls[i].Sub(calls[i-1]); gap != 5*time.Second {
				t.Fatalf("watch %d started %v after the previous one, want 5s", i, gap)
			}
		}
	})
}
