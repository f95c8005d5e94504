package syncbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestBufferConcurrentWrites checks that concurrent writes all arrive
// whole (run with -race for the safety part).
func TestBufferConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				fmt.Fprintf(&b, "w%d\n", i)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("got %d lines, want 800", len(lines))
	}
	for _, l := range lines {
		if len(l) != 2 || l[0] != 'w' {
			t.Fatalf("torn line %q", l)
		}
	}
}
