package parity

import (
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// benchHandler counts what it is given and closes addsDone and
// updatesDone when the expected numbers are reached. It satisfies both
// libraries' ResourceEventHandler. Each handler is called from one
// goroutine at a time, so its counters are plain fields behind atomics
// only for the benchmark goroutine's reads.
type benchHandler struct {
	// The padding keeps each handler's counters on cache lines of their
	// own: handlers allocated side by side would otherwise slow each other
	// down (false sharing between handlers running on different cores)
	// in both libraries alike.
	_                     [64]byte
	wantAdds, wantUpdates int64
	adds, updates         atomic.Int64
	addsDone, updatesDone chan struct{}
	lastAdd               atomic.Int64 // UnixNano of the last expected add

	// stall, when not nil, makes OnUpdate wait until it is closed.
	stall <-chan struct{}
	// sent and lag, when not nil, record per update (indexed by the
	// object's Generation) the delay since sent[i] (UnixNano).
	sent, lag []int64
	_         [64]byte
}

func newBenchHandler(wantAdds, wantUpdates int) *benchHandler {
	return &benchHandler{
		wantAdds:    int64(wantAdds),
		wantUpdates: int64(wantUpdates),
		addsDone:    make(chan struct{}),
		updatesDone: make(chan struct{}),
	}
}

// OnAdd counts an add.
func (h *benchHandler) OnAdd(any, bool) {
	if h.adds.Add(1) == h.wantAdds {
		h.lastAdd.Store(time.Now().UnixNano())
		close(h.addsDone)
	}
}

// OnUpdate counts an update, after waiting for stall and recording lag.
func (h *benchHandler) OnUpdate(_, newObj any) {
	if h.stall != nil {
		<-h.stall
	}
	if h.lag != nil {
		if cm, ok := newObj.(*corev1.ConfigMap); ok {
			h.lag[cm.Generation] = time.Now().UnixNano() - h.sent[cm.Generation]
		}
	}
	if h.updates.Add(1) == h.wantUpdates {
		close(h.updatesDone)
	}
}

// OnDelete ignores deletes (the benchmarks make none).
func (h *benchHandler) OnDelete(any) {}
