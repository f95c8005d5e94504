package e2e

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// inflightGrace is how long after a forced stop of a range a replica may
// still deliver one of its objects: a handler call already dispatched when
// the claim was lost is not waited for (README, "Limits").
const inflightGrace = time.Second

// holding is a replica's hold on an object in the replay.
type holding struct {
	replica string
	rng     int
	at      int64
}

// replayResult is what replaying every replica's output in time order
// found.
type replayResult struct {
	deliveries int // adds and updates
	violations int // an add or update while another replica held the object
	outside    int // an add or update of a range the replica did not serve
	inflight   int // one within inflightGrace after a forced stop (allowed)
	graceful   int // graceful range stops
	forced     int // forced range stops of replicas not killed
	handovers  int // released claims after a graceful stop
	// takeovers are, per SIGKILLed replica, the time from the kill until
	// every range it served was started by another replica; -1 if one
	// never was.
	takeovers map[string]time.Duration
	// errors are the first violations, described.
	errors []string
	// beliefs are, per replica not killed, what its handler was last told
	// of each object: key -> resourceVersion (adds and updates minus
	// deletes, "gone" included).
	beliefs map[string]map[string]string
}

// replayReplicas replays the deliveries and range starts and stops of
// procs (objects named in namespace ns, or by whole keys if ns is "") in
// time order (one host, one clock) and checks the guarantee of
// README's "Scale out": no replica delivers an add or update of an object
// while another holds it. A replica holds an object from its add or update
// until its delete or "gone" of it, its forced stop of the object's range
// (a claim lost by expiry: its deletes may come later), or its SIGKILL. A
// graceful stop holds on until the "gone" deletes, which come before the
// claim is released. It also checks that a replica delivers adds and
// updates only of ranges it serves (from "start" to "stopped"), but for a
// call in flight during a forced stop.
func replayReplicas(ns string, procs []*replicaProc) replayResult {
	killedAt := map[string]int64{}
	var all []replicaLine
	for _, p := range procs {
		if k := p.killedAt(); !k.IsZero() {
			killedAt[p.id] = k.UnixNano()
			all = append(all, replicaLine{T: k.UnixNano(), K: "killed", replica: p.id})
		}
		all = append(all, p.snapshot()...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].T < all[j].T })

	res := replayResult{takeovers: map[string]time.Duration{}, beliefs: map[string]map[string]string{}}
	holder := map[string]holding{}
	serving := map[string]map[int]bool{}         // replica -> ranges served now
	forcedAt := map[string]map[int]int64{}       // replica -> range -> last forced stop
	pending := map[string]map[int]bool{}         // killed replica -> its ranges not yet started elsewhere
	report := func(format string, args ...any) { // the first few
		if len(res.errors) < 5 {
			res.errors = append(res.errors, fmt.Sprintf(format, args...))
		}
	}
	for _, p := range procs {
		serving[p.id], forcedAt[p.id] = map[int]bool{}, map[int]int64{}
		if _, dead := killedAt[p.id]; !dead {
			res.beliefs[p.id] = map[string]string{}
		}
	}
	for _, l := range all {
		key := l.N // the soak's traces carry whole keys
		if ns != "" {
			key = ns + "/" + l.N
		}
		switch l.K {
		case "killed":
			pending[l.replica] = maps.Clone(serving[l.replica])
			clear(serving[l.replica])
			for k, h := range holder {
				if h.replica == l.replica {
					delete(holder, k)
				}
			}
		case "start":
			serving[l.replica][l.Range] = true
			for victim, rs := range pending {
				if rs[l.Range] && victim != l.replica {
					delete(rs, l.Range)
					if len(rs) == 0 {
						res.takeovers[victim] = time.Duration(l.T - killedAt[victim])
						delete(pending, victim)
					}
				}
			}
		case "stopped":
			delete(serving[l.replica], l.Range)
			if l.Graceful {
				res.graceful++
				break
			}
			res.forced++
			forcedAt[l.replica][l.Range] = l.T
			for k, h := range holder {
				if h.replica == l.replica && h.rng == l.Range {
					delete(holder, k)
				}
			}
		case "handover":
			res.handovers++
		case "add", "update":
			res.deliveries++
			if b := res.beliefs[l.replica]; b != nil {
				b[key] = l.RV
			}
			if !serving[l.replica][l.Range] {
				if f, ok := forcedAt[l.replica][l.Range]; ok && l.T-f < int64(inflightGrace) {
					res.inflight++
				} else {
					res.outside++
					report("%s delivered %s %s (range %d) at %d while not serving the range", l.replica, l.K, key, l.Range, l.T)
				}
			}
			if h, ok := holder[key]; ok && h.replica != l.replica {
				res.violations++
				report("%s delivered %s %s at %d while %s held it (since %d)", l.replica, l.K, key, l.T, h.replica, h.at)
			}
			holder[key] = holding{replica: l.replica, rng: l.Range, at: l.T}
		case "delete", "gone":
			if b := res.beliefs[l.replica]; b != nil {
				delete(b, key)
			}
			if holder[key].replica == l.replica {
				delete(holder, key)
			}
		}
	}
	for victim := range pending {
		res.takeovers[victim] = -1
	}
	return res
}

// diffBeliefs describes how what the handlers of the replicas not killed
// were told, between them, differs from the server's objects at their
// resourceVersions, each object told to one replica; "" if it does not:
// then every update made reached some handler, unless a later one
// superseded it.
func diffBeliefs(res replayResult, want map[string]string) string {
	got := map[string]string{}
	var twice []string
	for _, b := range res.beliefs {
		for k, rv := range b {
			if _, dup := got[k]; dup {
				twice = append(twice, k)
			}
			got[k] = rv
		}
	}
	if len(twice) > 0 {
		slices.Sort(twice)
		return fmt.Sprintf("handlers of two live replicas hold %d objects, for example %v", len(twice), twice[:min(5, len(twice))])
	}
	if d := diffStates(want, got); d != "" {
		return "handlers differ from the server: " + d
	}
	return ""
}

// checkExclusive is replayReplicas reporting its errors, with a log line.
func checkExclusive(t *testing.T, ns string, procs []*replicaProc) replayResult {
	t.Helper()
	res := replayReplicas(ns, procs)
	for _, e := range res.errors {
		t.Error(e)
	}
	var took []string
	for _, id := range slices.Sorted(maps.Keys(res.takeovers)) {
		took = append(took, fmt.Sprintf("%s %v", id, res.takeovers[id].Round(time.Millisecond)))
	}
	t.Logf("exclusivity: %d deliveries by %d replicas checked, %d violations, %d outside a served range (%d in flight at a forced stop); range stops: %d graceful, %d forced; takeovers after SIGKILL: %s",
		res.deliveries, len(procs), res.violations, res.outside, res.inflight, res.graceful, res.forced, strings.Join(took, ", "))
	return res
}
