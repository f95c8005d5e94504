package informer

import (
	"fmt"
	"sort"
	"sync"
)

// trRecorder is the transcripts' recording handler. A call is recorded when
// it starts; then it blocks while the recorder is stalled, and panics if its
// object is in the panic set.
type trRecorder struct {
	byKey bool // take groups calls by object key (for workers > 1)

	mu     sync.Mutex
	calls  []trCall
	stall  chan struct{}
	panics map[string]bool
}

type trCall struct{ key, line string }

func (r *trRecorder) setStall(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case on && r.stall == nil:
		r.stall = make(chan struct{})
	case !on && r.stall != nil:
		close(r.stall)
		r.stall = nil
	}
}

func (r *trRecorder) panicOn(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.panics == nil {
		r.panics = map[string]bool{}
	}
	r.panics[name] = true
}

func (r *trRecorder) rec(obj any, line string) {
	key, _ := DeletionHandlingMetaNamespaceKeyFunc(obj)
	_, name, _ := SplitMetaNamespaceKey(key)
	r.mu.Lock()
	boom := r.panics[name]
	if boom {
		line += " (panic)"
	}
	r.calls = append(r.calls, trCall{key: key, line: line})
	stall := r.stall
	r.mu.Unlock()
	if stall != nil {
		<-stall
	}
	if boom {
		panic(fmt.Sprintf("handler panics on %s", key))
	}
}

func (r *trRecorder) OnAdd(obj any, initial bool) {
	r.rec(obj, fmt.Sprintf("add %s initial=%v", siDesc(obj), initial))
}
func (r *trRecorder) OnUpdate(o, n any) { r.rec(n, "update "+siDesc(o)+" -> "+siDesc(n)) }
func (r *trRecorder) OnDelete(obj any)  { r.rec(obj, "delete "+siDesc(obj)) }

// take returns and forgets the calls recorded so far, grouped by key if
// byKey is set.
func (r *trRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	if r.byKey {
		sort.SliceStable(calls, func(i, j int) bool { return calls[i].key < calls[j].key })
	}
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.line
	}
	return out
}
