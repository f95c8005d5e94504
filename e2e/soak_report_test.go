package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// soakReport is the soak's JSON report.
type soakReport struct {
	Seed          int64             `json:"seed"`
	Duration      string            `json:"duration"`
	Elapsed       float64           `json:"elapsed_s"`
	TargetRate    float64           `json:"target_writes_per_s"`
	Writes        int64             `json:"writes"`
	WritesByOp    map[string]int64  `json:"writes_by_op"`
	Subjects      []soakSubjectRep  `json:"subjects"`
	Faults        []soakFault       `json:"faults"`
	FaultsByKind  map[string]int    `json:"faults_by_kind"`
	Comparisons   []soakComparison  `json:"comparisons"`
	Quiescent     []soakQuiescent   `json:"quiescent_checks"`
	Violations    map[string]int    `json:"violations"`
	ViolationList []string          `json:"violation_messages"`
	Total         int               `json:"violation_total"`
	Before        soakBaseline      `json:"baseline_before"`
	After         soakBaseline      `json:"baseline_after"`
	Samples       []soakSample      `json:"samples"`
	Files         map[string]string `json:"files"`
	// Notes are the end-of-run checks' lines (panic floods, refusals).
	Notes []string `json:"notes"`
	// Load is the load phase's figures.
	Load *soakLoadResult `json:"load_phase,omitempty"`
}

// soakSubjectRep sums up one informer (the churn slot's informers are one
// entry per group).
type soakSubjectRep struct {
	Name        string           `json:"name"`
	Delivered   int64            `json:"handler_calls"`
	WatchEvents int64            `json:"watch_events"`
	Relists     int64            `json:"lists"`
	Handlers    []soakHandlerRep `json:"handlers"`
}

// soakHandlerRep sums up one handler.
type soakHandlerRep struct {
	Name      string `json:"name"`
	Policy    string `json:"policy"`
	Calls     int64  `json:"calls"`
	Panics    uint64 `json:"panics,omitempty"`
	HighWater int64  `json:"high_water,omitempty"`
	Coalesced uint64 `json:"coalesced,omitempty"`
	Removed   bool   `json:"removed,omitempty"`
}

func handlerRep(r *soakReg, removed bool) soakHandlerRep {
	_, calls := r.h.tokens()
	hr := soakHandlerRep{Name: r.h.name, Policy: r.h.policy, Calls: calls, Removed: removed}
	if st, ok := r.stats(); ok {
		hr.Panics, hr.HighWater, hr.Coalesced = st.Panics, st.HighWater, st.Coalesced
	}
	return hr
}

// subjectReports sums up every subject, running or stopped.
func (e *soakEnv) subjectReports() []soakSubjectRep {
	e.mu.Lock()
	retired := map[*soakReg]bool{}
	for _, r := range e.retired {
		retired[r] = true
	}
	stopped := append([]*soakSubject(nil), e.stopped...)
	e.mu.Unlock()
	var out []soakSubjectRep
	for _, g := range e.groups {
		for _, s := range g.subjects {
			rep := soakSubjectRep{Name: s.name, Delivered: s.delivered.Load(), WatchEvents: s.lw.forwarded.Load(), Relists: s.lw.lists.Load()}
			for _, r := range s.registrations() {
				rep.Handlers = append(rep.Handlers, handlerRep(r, false))
			}
			for r := range retired {
				if strings.HasPrefix(r.h.name, s.name+"/") {
					rep.Handlers = append(rep.Handlers, handlerRep(r, true))
				}
			}
			sort.Slice(rep.Handlers, func(i, j int) bool { return rep.Handlers[i].Name < rep.Handlers[j].Name })
			out = append(out, rep)
		}
		churn := soakSubjectRep{Name: g.name + "/churn"}
		for _, s := range append(stopped, e.churnOf(g)) {
			if s.group != g {
				continue
			}
			churn.Delivered += s.delivered.Load()
			churn.WatchEvents += s.lw.forwarded.Load()
			churn.Relists += s.lw.lists.Load()
		}
		out = append(out, churn)
	}
	return out
}

// finish runs the final checks, stops everything, checks the baseline and
// writes the report.
func (e *soakEnv) finish(base soakBaseline) {
	t := e.t
	rep := &soakReport{Seed: e.cfg.seed, Duration: e.cfg.duration.String(), TargetRate: e.cfg.rate, Before: base}
	rep.Comparisons = e.compareAll()
	e.checkHandlerCounters()
	rep.Notes = e.finalChecks()
	rep.Load = e.load
	e.procs.check()
	rep.Subjects = e.subjectReports()
	rep.Writes, rep.WritesByOp = e.wl.writes.Load(), e.wl.countsSnapshot()
	rep.Faults = e.inj.snapshot()
	rep.FaultsByKind = map[string]int{}
	for _, f := range rep.Faults {
		rep.FaultsByKind[f.Kind]++
	}
	e.mu.Lock()
	rep.Quiescent, rep.Samples = e.checks, e.samples
	e.mu.Unlock()
	for _, g := range e.groups {
		for _, s := range append(g.subjects, e.churnOf(g)) {
			s.stop()
		}
	}
	rep.Elapsed = e.since()
	// Nothing of the run may stay reachable but the report.
	e.groups, e.retired, e.stopped, e.wl = nil, nil, nil, nil
	rep.After = e.checkBaseline(base)
	rep.Violations, rep.ViolationList, rep.Total = e.viol.snapshot()

	rep.Files = map[string]string{
		"json":    filepath.Join(e.cfg.report, "soak.json"),
		"summary": filepath.Join(e.cfg.report, "summary.txt"),
		"chart":   filepath.Join(e.cfg.report, "timeline.png"),
	}
	summary := rep.summary()
	if err := writeSoakChart(rep.Files["chart"], rep); err != nil {
		t.Errorf("chart: %v", err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rep.Files["json"], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rep.Files["summary"], []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Println(summary)
	if rep.Total > 0 {
		t.Errorf("soak: %d invariant violations (seed %d):\n%s", rep.Total, rep.Seed, strings.Join(rep.ViolationList, "\n"))
	}
}

// summary is the short text form of the report.
func (r *soakReport) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "== soak summary: seed %d, %s (%.0fs elapsed), target %.0f writes/s\n", r.Seed, r.Duration, r.Elapsed, r.TargetRate)
	fmt.Fprintf(&b, "writes: %d (%.1f/s):", r.Writes, float64(r.Writes)/max(r.Elapsed, 1))
	for _, k := range sortedKeys(r.WritesByOp) {
		fmt.Fprintf(&b, " %s %d", k, r.WritesByOp[k])
	}
	b.WriteString("\nhandler calls per subject (watch events received, lists):\n")
	var total int64
	for _, s := range r.Subjects {
		total += s.Delivered
		fmt.Fprintf(&b, "  %-36s %9d  (%d, %d)\n", s.Name, s.Delivered, s.WatchEvents, s.Relists)
	}
	fmt.Fprintf(&b, "  %-36s %9d\n", "total", total)
	fmt.Fprintf(&b, "faults: %d:", len(r.Faults))
	for _, k := range sortedKeys(r.FaultsByKind) {
		fmt.Fprintf(&b, " %s %d", k, r.FaultsByKind[k])
	}
	b.WriteString("\n")
	compared := 0
	for _, c := range r.Comparisons {
		compared += c.Compared
	}
	fmt.Fprintf(&b, "compared with client-go: %d handler calls in %d handler pairs\n", compared, len(r.Comparisons))
	ok := 0
	for _, q := range r.Quiescent {
		if q.OK {
			ok++
		}
	}
	fmt.Fprintf(&b, "quiescent checks (stores and handlers equal the server): %d of %d passed\n", ok, len(r.Quiescent))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "%s\n", n)
	}
	if l := r.Load; l != nil {
		fmt.Fprintf(&b, "load phase: ramp")
		for _, s := range l.Steps {
			fmt.Fprintf(&b, " %dw=%.0f/s(p99 %.0fms)", s.Writers, s.Rate, s.P99MS)
		}
		fmt.Fprintf(&b, "; sustained %.0f writes/s (%d writers, p50 %.0f ms, p99 %.0f ms, %d errors) for %.0fs with %d handlers; peak lag %.0f ms, max pending %d\n",
			l.Hold.Rate, l.Hold.Writers, l.Hold.P50MS, l.Hold.P99MS, l.Hold.Errors, l.HoldSeconds, l.Handlers, l.PeakLagMS, l.MaxPending)
		fmt.Fprintf(&b, "load phase after: probe lag %.0f ms (baseline %.0f ms) %.1fs after; heap %d MiB before, %d MiB after (allowed %d MiB)\n",
			l.LagAfterMS, l.BaseLagMS, l.RecoveredInS, l.HeapBefore>>20, l.HeapAfter>>20, l.HeapAllowed>>20)
	}
	fmt.Fprintf(&b, "goroutines %d -> %d, heap %d MiB -> %d MiB\n", r.Before.Goroutines, r.After.Goroutines, r.Before.HeapBytes>>20, r.After.HeapBytes>>20)
	fmt.Fprintf(&b, "invariant violations: %d", r.Total)
	for _, k := range sortedKeys(r.Violations) {
		fmt.Fprintf(&b, " %s %d", k, r.Violations[k])
	}
	fmt.Fprintf(&b, "\nreport: %s\ntimeline: %s\n", r.Files["json"], r.Files["chart"])
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
