package e2e

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/textlogger"

	"github.com/kfanout/fanout/informer"
)

// soakRefuseOneIn is how many object versions there are for one that the
// refusing subject's index function refuses.
const soakRefuseOneIn = 10

// soakRefused reports whether the refusing subject's index function refuses
// the version rv of key: one in soakRefuseOneIn, fixed by a hash of both,
// so that the check and the index function agree without sharing state.
func soakRefused(key, rv string) bool {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key + "@" + rv))
	return h.Sum32()%soakRefuseOneIn == 0
}

// newSoakRefusing returns a fanout informer subject whose index function
// refuses random object versions (soakRefused). Only the refused writes may
// be missing: at each quiescent point its store and its handler must hold
// every object version the server lists that was not refused, and for a
// refused one the key's earlier version or nothing (soakRelaxed). Its
// refusals are counted by the index function and by the informer
// (InformerStatsOf): at the end both counts must be equal.
func newSoakRefusing(g *soakGroup, kind string) *soakSubject {
	lw := newGapLW(g.cs, g.selector)
	var refusals atomic.Int64
	indexers := informer.Indexers{"soak-refuse": func(obj interface{}) ([]string, error) {
		cm := obj.(*corev1.ConfigMap)
		if soakRefused(cmKey(cm), cm.ResourceVersion) {
			refusals.Add(1)
			return nil, errors.New("soak: this version is refused")
		}
		return []string{cm.Name}, nil
	}}
	inf := informer.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, informer.SharedIndexInformerOptions{Indexers: indexers})
	s := newSoakFanoutOn(g, kind, inf, lw)
	s.refused = soakRefused
	s.finalCheck = func(e *soakEnv) string {
		// The informer counts a refusal after the index function
		// returned its error: a relist running now may be between the
		// two, so the counts are compared once they are stable.
		var st informer.InformerStats
		var ours int64
		ok := false
		for deadline := time.Now().Add(30 * time.Second); ; {
			before := refusals.Load()
			st, ok = informer.InformerStatsOf(inf)
			ours = refusals.Load()
			if !ok || (ours == before && int64(st.IndexRefusals) == ours) || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		switch {
		case !ok:
			e.viol.add("index-refusals", s.name+": no informer stats")
		case int64(st.IndexRefusals) != ours:
			// Each refused write calls the index function once, so the
			// two counts are equal.
			e.viol.add("index-refusals", fmt.Sprintf("%s: the index function refused %d times, the informer counted %d refusals", s.name, ours, st.IndexRefusals))
		}
		return fmt.Sprintf("%s: the index function refused %d times, the informer counted %d refusals", s.name, ours, st.IndexRefusals)
	}
	return s
}

// soakRelaxed returns what a refusing subject's state must equal, given the
// server's state want and the subject's state got: for each key whose
// listed version is refused, the subject may hold an older version of it
// (which stays when an update is refused) or none (a refused create).
func soakRelaxed(want, got map[string]string, refused func(key, rv string) bool) map[string]string {
	out := make(map[string]string, len(want))
	for k, v := range want {
		if !refused(k, v) {
			out[k] = v
			continue
		}
		if g, ok := got[k]; ok && parseRV(g) < parseRV(v) {
			out[k] = g
		}
	}
	return out
}

// soakPanicFlood is a handler that panics on every call, registered with
// RecoverPanics and a logger that counts its entries: the informer must
// count every panic and write a bounded number of log entries (the first
// panic with its stack, then at most one summary per 10 s, and a stack
// again after 10 s without a panic).
type soakPanicFlood struct {
	name    string
	start   time.Time
	calls   atomic.Int64
	entries atomic.Int64
	bytes   atomic.Int64
	reg     informer.ResourceEventHandlerRegistration
}

// soakPanicLogPeriod is the informer's panic summary period.
const soakPanicLogPeriod = 10 * time.Second

func (f *soakPanicFlood) Write(p []byte) (int, error) {
	f.entries.Add(1)
	f.bytes.Add(int64(len(p)))
	return len(p), nil
}

func (f *soakPanicFlood) call() {
	f.calls.Add(1)
	panic("soak: this handler panics on every call")
}

// addPanicFlood registers a soakPanicFlood on s's fanout informer.
func addPanicFlood(s *soakSubject) (*soakPanicFlood, error) {
	f := &soakPanicFlood{name: s.name + "/panic-flood", start: time.Now()}
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(f)))
	reg, err := s.inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(interface{}) { f.call() },
		UpdateFunc: func(interface{}, interface{}) { f.call() },
		DeleteFunc: func(interface{}) { f.call() },
	}, informer.HandlerOptions{Name: "panic-flood", RecoverPanics: true, Logger: &logger, BacklogWarnThresholds: []int{-1}})
	f.reg = reg
	return f, err
}

// check records a violation when a panic went uncounted or the log grew
// past its bound, and returns a line for the summary.
func (f *soakPanicFlood) check(e *soakEnv) string {
	st, ok := informer.StatsOf(f.reg)
	calls := f.calls.Load()
	periods := int64(math.Ceil(time.Since(f.start).Seconds() / soakPanicLogPeriod.Seconds()))
	bound := 2 + 2*periods
	entries := f.entries.Load()
	switch {
	case !ok:
		e.viol.add("panics", f.name+": no listener stats")
	case int64(st.Panics) != calls:
		e.viol.add("panics", fmt.Sprintf("%s: %d calls panicked, %d counted", f.name, calls, st.Panics))
	}
	if entries > bound {
		e.viol.add("panic-log-flood", fmt.Sprintf("%s: %d log entries for %d panics, bound %d", f.name, entries, calls, bound))
	}
	return fmt.Sprintf("%s: %d panics (all counted: %t), %d log entries (%d bytes), bound %d", f.name, calls, ok && int64(st.Panics) == calls, entries, f.bytes.Load(), bound)
}
