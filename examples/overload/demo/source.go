package demo

import (
	"context"

	"github.com/kfanout/fanout/informer"
)

// Source is the API a run loads: the informer lists and watches it, and
// Produce updates its objects. The demo makes a new Source for each run
// (see NewSourceFunc); every object must exist before the run starts.
type Source interface {
	informer.ListerWatcher

	// Watching reports whether the informer has a watch open, so that the
	// load starts only once its updates reach the informer as events.
	Watching() bool
	// Produce updates the objects round robin at rate updates per second
	// until ctx is done. It holds back while more than maxLag of its
	// updates have not reached the informer (received reports how many
	// have), so that the memory the demo measures is the informer's and
	// not a queue of the source's. It returns once it has stopped.
	Produce(ctx context.Context, rate int, maxLag uint64, received func() uint64)
	// Produced returns how many updates Produce has made so far. It is
	// safe to call while Produce runs.
	Produced() uint64
	// Latest returns each object's newest resourceVersion by object name.
	// The demo calls it after Produce has returned.
	Latest(ctx context.Context) (map[string]int, error)
}

// NewSourceFunc returns the Source of one run, with cfg.Objects objects of
// about cfg.Payload bytes of data each.
type NewSourceFunc func(ctx context.Context, cfg Config) (Source, error)
