package e2e

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// soakTok is one handler call for one key, reduced to what the soak
// compares: the resource version of the object the call carries (the new
// one of an update, the deleted one of a delete), whether the object is
// present afterwards, and whether the delete was a tombstone (the informer
// learnt of it from a relist).
type soakTok struct {
	rv      int64
	present bool
	unknown bool
}

// soakHandler is an event handler for fanout and client-go informers that
// records every call per key, checks as it goes that resource versions per
// key never go backwards, and can be told to stall or to panic.
type soakHandler struct {
	name   string // "<subject>/<handler>"
	policy string // "grow", "coalesce"
	// compared handlers are checked against client-go's reference handler.
	compared bool
	viol     *soakViolations
	onCall   func() // counts deliveries for the subject
	// identity names the object a call is about, for the per-object
	// order and state: the key by default (soakKeyIdentity).
	identity func(cm *corev1.ConfigMap) string

	mu     sync.Mutex
	toks   map[string][]soakTok
	state  map[string]string // key -> rv, as the calls imply
	lastRV map[string]int64
	calls  int64

	stallUntil atomic.Int64 // unix nanos
	panics     atomic.Int64 // calls left that panic after recording
	injected   atomic.Int64 // panics raised
}

func newSoakHandler(name, policy string, compared bool, viol *soakViolations, onCall func()) *soakHandler {
	return &soakHandler{
		name: name, policy: policy, compared: compared, viol: viol, onCall: onCall, identity: soakKeyIdentity,
		toks: map[string][]soakTok{}, state: map[string]string{}, lastRV: map[string]int64{},
	}
}

func (h *soakHandler) record(cm *corev1.ConfigMap, present, unknown bool) {
	if d := time.Until(time.Unix(0, h.stallUntil.Load())); d > 0 {
		time.Sleep(d)
	}
	key, id := cmKey(cm), h.identity(cm)
	rv := parseRV(cm.ResourceVersion)
	h.mu.Lock()
	if last, ok := h.lastRV[id]; ok && rv < last {
		h.viol.add("rv-order", fmt.Sprintf("%s: %s went from rv %d back to %d", h.name, id, last, rv))
	}
	h.lastRV[id] = max(h.lastRV[id], rv)
	h.toks[key] = append(h.toks[key], soakTok{rv: rv, present: present, unknown: unknown})
	if present {
		h.state[id] = cm.ResourceVersion
	} else {
		delete(h.state, id)
	}
	h.calls++
	h.mu.Unlock()
	h.onCall()
	if h.panics.Load() > 0 && h.panics.Add(-1) >= 0 {
		h.injected.Add(1)
		panic("soak: injected handler panic")
	}
}

// OnAdd records an add.
func (h *soakHandler) OnAdd(obj interface{}, _ bool) { h.record(obj.(*corev1.ConfigMap), true, false) }

// OnUpdate records an update.
func (h *soakHandler) OnUpdate(_, newObj interface{}) {
	h.record(newObj.(*corev1.ConfigMap), true, false)
}

// OnDelete records a delete, or a tombstone's delete.
func (h *soakHandler) OnDelete(obj interface{}) {
	switch t := obj.(type) {
	case informer.DeletedFinalStateUnknown:
		h.record(t.Obj.(*corev1.ConfigMap), false, true)
	case cache.DeletedFinalStateUnknown:
		h.record(t.Obj.(*corev1.ConfigMap), false, true)
	default:
		h.record(obj.(*corev1.ConfigMap), false, false)
	}
}

// soakKeyIdentity is the default identity of an object: its key.
func soakKeyIdentity(cm *corev1.ConfigMap) string { return cmKey(cm) }

// snapshot returns a copy of the implied state, by key. When the handler
// believes in two objects of one key (a sharded replica told of a new
// object before the old one's delete), the key's value names both
// versions, which equals no server state.
func (h *soakHandler) snapshot() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]string, len(h.state))
	for id, v := range h.state {
		key, _, _ := strings.Cut(id, " (uid ")
		if old, dup := out[key]; dup {
			v = old + " and " + v
		}
		out[key] = v
	}
	return out
}

// tokens returns a copy of the per-key calls and their total.
func (h *soakHandler) tokens() (map[string][]soakTok, int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string][]soakTok, len(h.toks))
	for k, v := range h.toks {
		out[k] = append([]soakTok(nil), v...)
	}
	return out, h.calls
}

// soakViolations collects invariant violations by kind, keeping the first
// few messages of each.
type soakViolations struct {
	mu     sync.Mutex
	counts map[string]int
	first  []string
	start  time.Time
}

func newSoakViolations(start time.Time) *soakViolations {
	return &soakViolations{counts: map[string]int{}, start: start}
}

func (v *soakViolations) add(kind, msg string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.counts[kind]++
	if v.counts[kind] <= 5 {
		v.first = append(v.first, fmt.Sprintf("[%6.1fs] %s: %s", time.Since(v.start).Seconds(), kind, msg))
	}
}

func (v *soakViolations) snapshot() (map[string]int, []string, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	counts := make(map[string]int, len(v.counts))
	total := 0
	for k, n := range v.counts {
		counts[k] = n
		total += n
	}
	return counts, append([]string(nil), v.first...), total
}
