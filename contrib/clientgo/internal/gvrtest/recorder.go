package gvrtest

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
)

// Reactors is the part of client-go's fake clients that Record needs.
type Reactors interface {
	PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
	PrependWatchReactor(resource string, reaction clienttesting.WatchReactionFunc)
}

// Recorder records the lists and watches a fake client receives, and
// leaves the answer to the client's tracker.
type Recorder struct {
	// Watching is closed when the first watch reaches the tracker; events
	// made after that reach the informer.
	Watching <-chan struct{}

	watching  chan struct{}
	closeOnce sync.Once

	mu    sync.Mutex // guards calls
	calls []string
}

// Record installs a Recorder on fake.
func Record(fake Reactors) *Recorder {
	r := &Recorder{watching: make(chan struct{})}
	r.Watching = r.watching
	fake.PrependReactor("list", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		r.add(a)
		return false, nil, nil
	})
	fake.PrependWatchReactor("*", func(a clienttesting.Action) (bool, watch.Interface, error) {
		r.add(a)
		r.closeOnce.Do(func() { close(r.watching) })
		return false, nil, nil
	})
	return r
}

// Calls returns the calls so far, as "list|watch resource ns=...
// labels=...".
func (r *Recorder) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// add records a.
func (r *Recorder) add(a clienttesting.Action) {
	var labels string
	switch a := a.(type) {
	case clienttesting.ListAction:
		labels = a.GetListRestrictions().Labels.String()
	case clienttesting.WatchAction:
		labels = a.GetWatchRestrictions().Labels.String()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf("%s %s ns=%q labels=%q", a.GetVerb(), a.GetResource().Resource, a.GetNamespace(), labels))
}
