package e2e

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// recorder is an event handler for fanout and client-go informers alike.
// It records, per object key, the calls it receives as short strings, and
// keeps the object state those calls imply.
type recorder struct {
	mu     sync.Mutex
	events map[string][]string
	state  map[string]string // key -> resourceVersion, as the calls imply
	total  int
}

func newRecorder() *recorder {
	return &recorder{events: map[string][]string{}, state: map[string]string{}}
}

func cmKey(cm *corev1.ConfigMap) string { return cm.Namespace + "/" + cm.Name }

func (r *recorder) record(key, event, rv string, deleted bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events[key] = append(r.events[key], event)
	r.total++
	if deleted {
		delete(r.state, key)
	} else {
		r.state[key] = rv
	}
}

// OnAdd records "add <rv>" or "add <rv> initial".
func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	cm := obj.(*corev1.ConfigMap)
	ev := "add " + cm.ResourceVersion
	if isInInitialList {
		ev += " initial"
	}
	r.record(cmKey(cm), ev, cm.ResourceVersion, false)
}

// OnUpdate records "update <old rv>-><new rv>".
func (r *recorder) OnUpdate(oldObj, newObj any) {
	o, n := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
	r.record(cmKey(n), fmt.Sprintf("update %s->%s", o.ResourceVersion, n.ResourceVersion), n.ResourceVersion, false)
}

// OnDelete records "delete <rv>", or "delete-unknown <rv>" for a
// tombstone (fanout's or client-go's DeletedFinalStateUnknown).
func (r *recorder) OnDelete(obj any) {
	kind := "delete"
	switch t := obj.(type) {
	case informer.DeletedFinalStateUnknown:
		kind, obj = "delete-unknown", t.Obj
	case cache.DeletedFinalStateUnknown:
		kind, obj = "delete-unknown", t.Obj
	}
	cm := obj.(*corev1.ConfigMap)
	r.record(cmKey(cm), kind+" "+cm.ResourceVersion, "", true)
}

// snapshot returns a copy of the implied state.
func (r *recorder) snapshot() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.state))
	for k, v := range r.state {
		out[k] = v
	}
	return out
}

// sequences returns a copy of the per-key calls and their total.
func (r *recorder) sequences() (map[string][]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]string, len(r.events))
	for k, v := range r.events {
		out[k] = append([]string(nil), v...)
	}
	return out, r.total
}

// diffSequences describes the keys whose call sequences differ, or "".
func diffSequences(want, got map[string][]string) string {
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var bad []string
	for k := range keys {
		if strings.Join(want[k], ", ") != strings.Join(got[k], ", ") {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	sort.Strings(bad)
	var b strings.Builder
	fmt.Fprintf(&b, "%d keys differ", len(bad))
	for _, k := range bad[:min(len(bad), 5)] {
		fmt.Fprintf(&b, "\n  %s:\n    want [%s]\n    got  [%s]", k, strings.Join(want[k], ", "), strings.Join(got[k], ", "))
	}
	return b.String()
}
