package e2e

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// The soak's invariants:
//
//   - store-vs-server: at every quiescent point (writes and faults paused,
//     every server back) each informer's store equals the server's list;
//   - handler-final-state: there, too, the state implied by the calls of
//     every synced handler equals it (coalescing ones included);
//   - rv-order: per key, the resource versions a handler is called with
//     never go backwards (checked on every call);
//   - vs-client-go: per key, a compared Grow handler's calls equal those of
//     client-go's handler on the same apiserver, outside the relist gaps of
//     either informer (soak_gaps_test.go): every call whose resource
//     version is in neither informer's gaps is kept, tombstone deletes
//     (learnt from a relist) are dropped, and repeats of the same resource
//     version (a relist's update of an unchanged object) count once. The
//     two kept sequences must be identical, key by key.
//   - coalesce-bound: a coalescing handler's pending notifications never
//     exceed MaxPending plus the number of keys (sampled every second, and
//     its high water at the end);
//   - panics: every injected panic was recovered and counted, and no other,
//     and every call of the panic-flood handlers (soakPanicFlood) too;
//   - panic-log-flood: a handler that panics on every call writes at most
//     2 + 2 log entries per 10 s of the run;
//   - index-refusals: the refusing subject's informer counted as many
//     refusals as its index function returned errors
//     (soak_refusals_test.go);
//     its store and handler are checked with the refused versions allowed
//     to be missing (soakRelaxed);
//   - baseline: after the run the goroutines (less idle HTTP connections)
//     return to their number before it, and the heap to within
//     soakHeapSlack of its size before it;
//   - sharded group (soak_sharded_test.go): at every quiescent point the
//     replicas' stores partition the server's list (store-vs-server, and
//     shard-exclusive for an object in two stores) and each replica's
//     handlers were told its store (handler-final-state); at the end, a
//     replay of their deliveries and range starts and stops finds no
//     delivery of an object while another replica held it, nor outside a
//     served range but for a call in flight at a forced stop
//     (shard-exclusive);
//   - load-lag and load-heap: after the load phase the handlers' lag and
//     the heap return to their baselines (soak_load_test.go);
//   - process-crash: etcd and both apiservers run, except while a fault
//     stopped them.

const soakHeapSlack = 24 << 20

// soakSample is one point of the timeline.
type soakSample struct {
	T         float64          `json:"t_s"`
	Writes    int64            `json:"writes"`
	Delivered map[string]int64 `json:"delivered"` // per subject, cumulative
	Pending   map[string]int64 `json:"pending"`   // per fanout handler
}

// soakQuiescent is one quiescent check.
type soakQuiescent struct {
	Label       string  `json:"label"`
	At          float64 `json:"at_s"`
	ConvergedIn float64 `json:"converged_in_s"`
	Objects     int     `json:"objects"`
	OK          bool    `json:"ok"`
}

// allSubjects returns every running subject.
func (e *soakEnv) allSubjects() []*soakSubject {
	var out []*soakSubject
	for _, g := range e.groups {
		out = append(out, g.subjects...)
		out = append(out, e.churnOf(g))
	}
	return out
}

// sampler records a timeline sample, checks the processes and the
// coalescing bound every second until ctx ends.
func (e *soakEnv) sampler(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		e.procs.check()
		s := soakSample{T: e.since(), Writes: e.wl.writes.Load(), Delivered: map[string]int64{}, Pending: map[string]int64{}}
		for _, sub := range e.allSubjects() {
			name := sub.name
			if sub.kind == "churn" {
				name = sub.group.name + "/churn"
			}
			s.Delivered[name] = sub.delivered.Load()
			for _, r := range sub.registrations() {
				st, ok := r.stats()
				if !ok {
					continue
				}
				s.Pending[r.h.name] = st.Pending
				if r.opts.coalesce {
					if bound := int64(r.opts.maxPending + e.cfg.keys + soakBigKeys + soakLoadKeys); st.Pending > bound {
						e.viol.add("coalesce-bound", fmt.Sprintf("%s: %d pending, bound %d", r.h.name, st.Pending, bound))
					}
				}
			}
		}
		e.mu.Lock()
		e.samples = append(e.samples, s)
		e.mu.Unlock()
	}
}

// quiesce pauses the writes and the faults, waits until every store and
// handler equals the server's list, records the check and lets them go.
func (e *soakEnv) quiesce(label string) {
	e.wl.pause()
	e.inj.gate.Lock()
	defer func() {
		e.inj.gate.Unlock()
		e.wl.resume()
	}()
	at := e.since()
	if err := e.procs.restore(); err != nil {
		e.viol.add("process-crash", "restore: "+err.Error())
	}
	ctx := context.Background()
	start := time.Now()
	deadline := start.Add(120 * time.Second)
	var msg, kind string
	var want map[string]string
	for {
		msg, kind = "", ""
		var err error
		if want, err = serverState(ctx, e.admin, setLabel+"="+e.wl.in); err != nil {
			msg, kind = "server list: "+err.Error(), "setup"
		}
		for _, s := range e.allSubjects() {
			if msg != "" {
				break
			}
			if s.shards != nil {
				continue // checked with the other replicas below
			}
			got := storeState(s.list())
			sWant := want
			if s.refused != nil {
				sWant = soakRelaxed(want, got, s.refused)
			}
			if d := diffStates(sWant, got); d != "" {
				msg, kind = s.name+" store: "+d, "store-vs-server"
				break
			}
			for _, r := range s.registrations() {
				if !r.synced() {
					continue
				}
				hGot := r.h.snapshot()
				hWant := want
				if s.refused != nil {
					hWant = soakRelaxed(want, hGot, s.refused)
				}
				if d := diffStates(hWant, hGot); d != "" {
					msg, kind = r.h.name+": "+d, "handler-final-state"
					break
				}
			}
		}
		for _, g := range e.groups {
			if msg == "" && g.shards != nil {
				msg, kind = g.shards.check(want)
			}
		}
		if msg == "" || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	q := soakQuiescent{Label: label, At: at, ConvergedIn: time.Since(start).Seconds(), Objects: len(want), OK: msg == ""}
	if msg != "" {
		e.viol.add(kind, fmt.Sprintf("%s check at %.0fs, not converged after 120s: %s", label, at, msg))
	}
	e.mu.Lock()
	e.checks = append(e.checks, q)
	e.mu.Unlock()
	e.logf("soak: %s check at %.1fs: %d objects, converged in %.1fs, ok=%t %s", label, at, len(want), q.ConvergedIn, q.OK, msg)
}

// soakComparison is the result of comparing one handler with client-go's.
type soakComparison struct {
	Handler   string `json:"handler"`
	Reference string `json:"reference"`
	Keys      int    `json:"keys"`
	Compared  int    `json:"compared_calls"`
	Excluded  int    `json:"excluded_calls"` // in a gap, or tombstones
	Gaps      int    `json:"gaps"`
	DiffKeys  int    `json:"differing_keys"`
}

// keptTokens applies the comparison's filter to one key's calls.
func keptTokens(toks []soakTok, gaps []rvGap) (kept []soakTok, excluded int) {
	for _, tok := range toks {
		drop := tok.unknown
		for _, g := range gaps {
			if drop {
				break
			}
			drop = g.contains(tok.rv)
		}
		if drop {
			excluded++
			continue
		}
		if n := len(kept); n > 0 && kept[n-1] == tok {
			continue
		}
		kept = append(kept, tok)
	}
	return kept, excluded
}

func formatToks(toks []soakTok) string {
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = fmt.Sprint(t.rv)
		if !t.present {
			parts[i] = "del@" + parts[i]
		}
	}
	return strings.Join(parts, " ")
}

// compareWithRef compares h (on subject s) with ref (on subject rs).
func (e *soakEnv) compareWithRef(rs *soakSubject, ref *soakHandler, s *soakSubject, h *soakHandler) soakComparison {
	gaps := append(rs.lw.gapSnapshot(), s.lw.gapSnapshot()...)
	want, _ := ref.tokens()
	got, _ := h.tokens()
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	c := soakComparison{Handler: h.name, Reference: ref.name, Keys: len(keys), Gaps: len(gaps)}
	for _, k := range sorted {
		w, wx := keptTokens(want[k], gaps)
		g, gx := keptTokens(got[k], gaps)
		c.Excluded += wx + gx
		c.Compared += len(g)
		if formatToks(w) != formatToks(g) {
			c.DiffKeys++
			e.viol.add("vs-client-go", fmt.Sprintf("%s vs %s, key %s:\n    client-go [%s]\n    got       [%s]", h.name, ref.name, k, formatToks(w), formatToks(g)))
		}
	}
	return c
}

// compareAll compares every compared handler of every group with the
// group's client-go handler.
func (e *soakEnv) compareAll() []soakComparison {
	var out []soakComparison
	for _, g := range e.groups {
		var rs *soakSubject
		var ref *soakHandler
		for _, s := range g.subjects {
			for _, r := range s.registrations() {
				if s.kind == "client-go" && r.h.name == s.name+"/ref" {
					rs, ref = s, r.h
				}
			}
		}
		if ref == nil {
			e.viol.add("setup", g.name+": no client-go reference handler")
			continue
		}
		for _, s := range g.subjects {
			for _, r := range s.registrations() {
				if r.h.compared {
					c := e.compareWithRef(rs, ref, s, r.h)
					e.logf("soak: %s vs %s: %d calls compared on %d keys, %d excluded (%d gaps), %d keys differ",
						c.Handler, c.Reference, c.Compared, c.Keys, c.Excluded, c.Gaps, c.DiffKeys)
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// checkHandlerCounters checks the coalescing high water and the panics of
// every fanout registration, running or retired.
func (e *soakEnv) checkHandlerCounters() {
	var regs []*soakReg
	for _, s := range e.allSubjects() {
		regs = append(regs, s.registrations()...)
	}
	e.mu.Lock()
	regs = append(regs, e.retired...)
	e.mu.Unlock()
	for _, r := range regs {
		st, ok := r.stats()
		if !ok {
			continue
		}
		if bound := int64(r.opts.maxPending + e.cfg.keys + soakBigKeys + soakLoadKeys + 2); r.opts.coalesce && st.HighWater > bound {
			e.viol.add("coalesce-bound", fmt.Sprintf("%s: high water %d, bound %d", r.h.name, st.HighWater, bound))
		}
		if inj := r.h.injected.Load(); int64(st.Panics) != inj {
			e.viol.add("panics", fmt.Sprintf("%s: %d panics injected, %d counted", r.h.name, inj, st.Panics))
		}
	}
}

// soakBaseline is the process's goroutines and heap at one point.
type soakBaseline struct {
	Goroutines int    `json:"goroutines"`
	HeapBytes  uint64 `json:"heap_bytes"`
}

// soakIgnoredGoroutines are the idle connections of client-go's shared
// transports, which outlive any one informer.
var soakIgnoredGoroutines = []string{
	"net/http.(*persistConn)", "http2.(*ClientConn)", "http2.(*clientConnReadLoop)", "klog/v2.(*flushDaemon)",
}

func soakGoroutines() int { return len(soakGoroutineStacks()) }

// soakGoroutineStacks returns the stacks of the goroutines the baseline
// counts.
func soakGoroutineStacks() []string {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		ignored := false
		for _, s := range soakIgnoredGoroutines {
			if strings.Contains(g, s) {
				ignored = true
				break
			}
		}
		if !ignored && strings.TrimSpace(g) != "" {
			out = append(out, g)
		}
	}
	return out
}

func takeSoakBaseline() soakBaseline {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return soakBaseline{Goroutines: soakGoroutines(), HeapBytes: ms.HeapAlloc}
}

// checkBaseline waits up to 30s for the goroutines and the heap to return
// to base and returns what it saw last.
func (e *soakEnv) checkBaseline(base soakBaseline) soakBaseline {
	var now soakBaseline
	for deadline := time.Now().Add(30 * time.Second); ; {
		now = takeSoakBaseline()
		if now.Goroutines <= base.Goroutines && now.HeapBytes <= base.HeapBytes+soakHeapSlack {
			return now
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if now.Goroutines > base.Goroutines {
		e.viol.add("baseline", fmt.Sprintf("%d goroutines after the run, %d before", now.Goroutines, base.Goroutines))
		e.logf("soak: goroutines after the run:\n%s", strings.Join(soakGoroutineStacks(), "\n\n"))
	}
	if now.HeapBytes > base.HeapBytes+soakHeapSlack {
		e.viol.add("baseline", fmt.Sprintf("heap %d MiB after the run, %d MiB before", now.HeapBytes>>20, base.HeapBytes>>20))
	}
	return now
}
