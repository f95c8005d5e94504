package listener

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// strKey keys "name" and "name@version" strings by name.
func strKey(obj any) (string, error) {
	s, ok := obj.(string)
	if !ok {
		return "", fmt.Errorf("not a string: %T", obj)
	}
	name, _, _ := strings.Cut(s, "@")
	return name, nil
}

func TestMergeRules(t *testing.T) {
	for _, tc := range []struct {
		earlier, later Notification
		want           Notification
		outcome        mergeOutcome
	}{
		{NewAdd("a@1", true), NewUpdate("a@1", "a@2"), NewAdd("a@2", true), mergedOne},
		{NewAdd("a@1", false), NewUpdate("a@1", "a@2"), NewAdd("a@2", false), mergedOne},
		{NewAdd("a@1", false), NewAdd("a@2", true), NewAdd("a@2", true), mergedOne},
		{NewAdd("a@1", true), NewDelete("a@2"), Notification{}, cancelled},
		{NewUpdate("a@1", "a@2"), NewUpdate("a@2", "a@3"), NewUpdate("a@1", "a@3"), mergedOne},
		{NewUpdate("a@1", "a@2"), NewDelete("a@3"), NewDelete("a@3"), mergedOne},
		{NewDelete("a@1"), NewDelete("a@2"), NewDelete("a@2"), mergedOne},
		{NewDelete("a@1"), NewAdd("a@2", false), Notification{}, keepBoth},
		{NewUpdate("a@1", "a@2"), NewAdd("a@3", false), Notification{}, keepBoth},
		{NewDelete("a@1"), NewUpdate("a@1", "a@2"), Notification{}, keepBoth},
	} {
		got, outcome := merge(tc.earlier, tc.later)
		if got != tc.want || outcome != tc.outcome {
			t.Errorf("merge(%+v, %+v) = %+v, %v; want %+v, %v", tc.earlier, tc.later, got, outcome, tc.want, tc.outcome)
		}
	}
}

func TestInvalidOptions(t *testing.T) {
	p := NewProcessor(ProcessorOptions{})
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{MaxPending: -1}, "MaxPending must not be negative"},
		{Options{Workers: -1}, "Workers must not be negative"},
		{Options{Workers: 1025, KeyFunc: func(any) (string, error) { return "", nil }}, "Workers must be at most 1024"},
		{Options{Overflow: 7}, "unknown overflow policy"},
		{Options{Overflow: OverflowBlock}, "MaxPending must be > 0 with OverflowBlock"},
		{Options{Overflow: OverflowCoalesce}, "OverflowCoalesce needs a KeyFunc"},
		{Options{Workers: 2}, "Workers > 1 needs a KeyFunc"},
	} {
		err := tc.opts.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want error containing %q", tc.opts, err, tc.want)
		}
	}
	l, err := p.NewListener(&recorder{}, Binding{UpstreamHasSynced: newUpstream("x")}, Options{RecoverPanics: true})
	if err != nil || l.Engine() != EngineDirect {
		t.Fatalf("RecoverPanics: %v, engine %v; want the direct engine", err, l.Engine())
	}
}

// With 8 workers and random handler delays, each key's notifications arrive
// in order, every one exactly once, and HasSynced waits for every initial
// add.
func TestWorkersKeepPerKeyOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		up := newUpstream("inf")
		rng := rand.New(rand.NewPCG(1, 2))
		var rngMu sync.Mutex
		r := &recorder{before: func(string) {
			rngMu.Lock()
			d := time.Duration(rng.IntN(1000)) * time.Microsecond
			rngMu.Unlock()
			time.Sleep(d)
		}}
		l := mustListener(t, p, r, up, Options{Workers: 8, KeyFunc: strKey})
		stop := runProcessor(p)
		defer stop()
		const keys, versions = 20, 30
		for k := range keys {
			p.Distribute(NewAdd(fmt.Sprintf("k%d@0", k), true), false)
		}
		up.sync()
		for v := 1; v <= versions; v++ {
			for k := range keys {
				p.Distribute(NewUpdate(fmt.Sprintf("k%d@%d", k, v-1), fmt.Sprintf("k%d@%d", k, v)), false)
			}
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if !l.HasSynced() {
			t.Fatal("not synced after every initial add returned")
		}
		next := map[string]int{}
		for _, c := range r.got() {
			f := strings.Fields(c)
			var name string
			var v int
			switch f[0] {
			case "add":
				if _, err := fmt.Sscanf(f[1], "k%d@0", &v); err != nil {
					t.Fatalf("bad call %q", c)
				}
				name, v = strings.Split(f[1], "@")[0], 0
			case "update":
				name = strings.Split(f[2], "@")[0]
				if _, err := fmt.Sscanf(strings.Split(f[2], "@")[1], "%d", &v); err != nil {
					t.Fatalf("bad call %q", c)
				}
				if want := fmt.Sprintf("%s@%d", name, v-1); f[1] != want {
					t.Fatalf("%q: old object %s, want %s", c, f[1], want)
				}
			}
			if v != next[name] {
				t.Fatalf("%s: version %d arrived, want %d", name, v, next[name])
			}
			next[name]++
		}
		if len(next) != keys {
			t.Fatalf("got %d keys, want %d", len(next), keys)
		}
		for k, n := range next {
			if n != versions+1 {
				t.Fatalf("%s: %d calls, want %d", k, n, versions+1)
			}
		}
	})
}

// RecoverPanics: a panicking initial-list OnAdd still counts as finished, so
// the registration syncs; the next notification is delivered at once (the
// bubble's clock does not move).
func TestRecoverPanicsDoesNotWedgeSync(t *testing.T) {
	defer func(old bool) { utilruntime.ReallyCrash = old }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = true // recovering must not depend on it
	for _, workers := range []int{0, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := NewProcessor(ProcessorOptions{})
				up := newUpstream("inf")
				h := &panicky{}
				l := mustListener(t, p, h, up, Options{RecoverPanics: true, Workers: workers, KeyFunc: strKey})
				stop := runProcessor(p)
				defer stop()
				start := time.Now()
				p.Distribute(NewAdd("boom", true), false)
				p.Distribute(NewAdd("next", true), false)
				up.sync()
				synctest.Wait()
				if !l.HasSynced() {
					t.Fatal("HasSynced wedged by a panicking initial add")
				}
				wantCalls(t, "handler", h.got(), []string{"add next true"})
				if s := l.Stats(); s.Panics != 1 || s.Delivered != 2 {
					t.Fatalf("stats = %+v, want Panics 1, Delivered 2", s)
				}
				if d := time.Since(start); d != 0 {
					t.Fatalf("clock moved %v: the listener slept after the panic", d)
				}
			})
		})
	}
}

// OldestPendingAge is exact from the first pending notification, on the
// listener's clock; a removal drops what is pending at once.
func TestOldestPendingAgeAndRemoval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewProcessor(ProcessorOptions{})
		g := newGate("add a false")
		r := &recorder{before: g.wait}
		l := mustListener(t, p, r, newUpstream("inf"), Options{Engine: EngineDirect})
		stop := runProcessor(p)
		defer stop()
		p.Distribute(NewAdd("a", false), false) // in the handler
		synctest.Wait()
		time.Sleep(3 * time.Second)
		p.Distribute(NewAdd("b", false), false)
		time.Sleep(2 * time.Second)
		p.Distribute(NewAdd("c", false), false)
		time.Sleep(time.Second)
		if s := l.Stats(); s.Pending != 2 || s.OldestPendingAge != 3*time.Second {
			t.Fatalf("stats = %+v, want Pending 2, OldestPendingAge 3s", s)
		}
		if err := p.RemoveListener(l); err != nil {
			t.Fatal(err)
		}
		if s := l.Stats(); s.Pending != 0 || s.OldestPendingAge != 0 {
			t.Fatalf("after removal: %+v, want nothing pending", s)
		}
		g.release("add a false")
		synctest.Wait()
		wantCalls(t, "handler", r.got(), []string{"add a false"})
	})
}
