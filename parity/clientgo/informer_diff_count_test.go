package parity

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"
)

// The differential test counts what it has replayed, so that `make fuzz`
// can say how much of client-go's behaviour it compared: the object
// changes its scripts made (every put and remove on a source, silent ones
// included) and the handler calls it compared (fanout's, each equal to
// client-go's).
var diffReplayed struct {
	seeds, changes, calls atomic.Int64
}

// changes returns how many changes were made to the source.
func (s *fakeSource) changes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(s.rv)
}

// countReplayed adds one finished run to diffReplayed.
func (r *diffRun) countReplayed() {
	diffReplayed.seeds.Add(1)
	diffReplayed.changes.Add(r.sides[0].src.changes())
	for _, l := range r.sides[1].logs {
		diffReplayed.calls.Add(int64(len(l.get())))
	}
}

// reportReplayed logs the totals and, when FANOUT_DIFF_COUNT_FILE is set,
// writes them there for make fuzz to print.
func reportReplayed(t *testing.T) {
	msg := fmt.Sprintf("informer differential: %d runs (seed x mode), %d object changes, %d handler calls compared with client-go",
		diffReplayed.seeds.Load(), diffReplayed.changes.Load(), diffReplayed.calls.Load())
	t.Log(msg)
	if path := os.Getenv("FANOUT_DIFF_COUNT_FILE"); path != "" {
		if err := os.WriteFile(path, []byte(msg+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
}
