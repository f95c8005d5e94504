package synctrack

import (
	"sync"
	"testing"
)

// Both trackers must be usable wherever a DoneChecker is expected.
var (
	_ DoneChecker = (*SingleFileTracker)(nil)
	_ DoneChecker = (*AsyncTracker[string])(nil)
)

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestSingleFileTracker(t *testing.T) {
	tr := NewSingleFileTracker("informer + event handler h")
	if tr.Name() != "informer + event handler h" {
		t.Fatalf("Name() = %q", tr.Name())
	}
	steps := []struct {
		do   func()
		want bool
	}{
		{func() {}, false},
		{tr.Start, false},
		{tr.Start, false},
		{tr.UpstreamHasSynced, false},
		{tr.Finished, false},
		{tr.Finished, true},
		{tr.Start, true}, // once synced, stays synced
	}
	for i, s := range steps {
		s.do()
		if got := tr.HasSynced(); got != s.want {
			t.Fatalf("step %d: HasSynced() = %v, want %v", i, got, s.want)
		}
		if got := isClosed(tr.Done()); got != s.want {
			t.Fatalf("step %d: Done() closed = %v, want %v", i, got, s.want)
		}
	}
}

func TestSingleFileTrackerUpstreamLast(t *testing.T) {
	tr := NewSingleFileTracker("x")
	tr.Start()
	tr.Finished()
	if tr.HasSynced() {
		t.Fatal("synced before upstream")
	}
	tr.UpstreamHasSynced()
	if !tr.HasSynced() {
		t.Fatal("not synced after upstream with nothing pending")
	}
	tr.UpstreamHasSynced() // second call is harmless
}

func TestSingleFileTrackerNegativePanics(t *testing.T) {
	tr := NewSingleFileTracker("x")
	defer func() {
		if recover() == nil {
			t.Fatal("Finished() without Start() did not panic")
		}
	}()
	tr.Finished()
}

func TestSingleFileTrackerConcurrent(t *testing.T) {
	tr := NewSingleFileTracker("x")
	const n = 1000
	for range n {
		tr.Start()
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range n / 4 {
				tr.Finished()
			}
		})
	}
	wg.Go(tr.UpstreamHasSynced)
	wg.Wait()
	if !tr.HasSynced() {
		t.Fatal("not synced after all finished and upstream synced")
	}
}

func TestAsyncTracker(t *testing.T) {
	tr := NewAsyncTracker[string]("async")
	if tr.Name() != "async" {
		t.Fatalf("Name() = %q", tr.Name())
	}
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{"start a", func() { tr.Start("a") }, false},
		{"start b", func() { tr.Start("b") }, false},
		{"start a again", func() { tr.Start("a") }, false},
		{"finish unknown", func() { tr.Finished("zzz") }, false},
		{"upstream", tr.UpstreamHasSynced, false},
		{"finish a", func() { tr.Finished("a") }, false},
		{"finish b", func() { tr.Finished("b") }, true},
		{"start c after sync", func() { tr.Start("c") }, true},
	}
	for _, s := range steps {
		s.do()
		if got := tr.HasSynced(); got != s.want {
			t.Fatalf("%s: HasSynced() = %v, want %v", s.name, got, s.want)
		}
		if got := isClosed(tr.Done()); got != s.want {
			t.Fatalf("%s: Done() closed = %v, want %v", s.name, got, s.want)
		}
	}
}

func TestAsyncTrackerNothingStarted(t *testing.T) {
	tr := NewAsyncTracker[int]("x")
	tr.Finished(1) // no panic, no effect
	if tr.HasSynced() {
		t.Fatal("synced before upstream")
	}
	tr.UpstreamHasSynced()
	if !tr.HasSynced() {
		t.Fatal("not synced with nothing started")
	}
}
