package informer

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kfanout/fanout/listener"
)

// handoffCollector is the handler the informer's process closures give
// processKeyedDeltas and processKeyedBatch. Under blockDeltas it writes
// nothing itself: each notification is begun there
// ([listener.Processor.BeginDistribute]: the receiving listeners fixed, the
// shared log appended to), and the handoffs that may wait are kept in
// order and finished by flush after blockDeltas is released. So a handler
// with OverflowBlock that waits for room holds up no registration or
// removal, while a handler added in between still gets each change exactly
// once: in the replay of the store if it was added after the change was
// written, by the handoff otherwise. Only the controller's goroutine uses
// it, one process call at a time.
type handoffCollector struct {
	s        *sharedIndexInformer
	handoffs []listener.Handoff // begun, not yet finished
}

// OnAdd begins the distribution of an add.
func (c *handoffCollector) OnAdd(obj any, isInInitialList bool) {
	c.s.mutationDetector.AddObject(obj)
	c.begin(listener.NewAdd(obj, isInInitialList), false)
}

// OnUpdate begins the distribution of an update; see
// [sharedIndexInformer.OnUpdate] for which ones are syncs.
func (c *handoffCollector) OnUpdate(oldObj, newObj any) {
	c.s.mutationDetector.AddObject(newObj)
	c.begin(listener.NewUpdate(oldObj, newObj), isSyncUpdate(oldObj, newObj))
}

// OnDelete begins the distribution of a delete.
func (c *handoffCollector) OnDelete(obj any) {
	c.begin(listener.NewDelete(obj), false)
}

func (c *handoffCollector) begin(n listener.Notification, sync bool) {
	if h := c.s.processor.BeginDistribute(n, sync); !h.Empty() {
		c.handoffs = append(c.handoffs, h)
	}
}

// flush finishes the begun handoffs in order, with blockDeltas released,
// and keeps the slice's memory for the next process call.
func (c *handoffCollector) flush() {
	for i := range c.handoffs {
		c.handoffs[i].Finish()
	}
	clear(c.handoffs)
	c.handoffs = c.handoffs[:0]
}

// isSyncUpdate reports whether an update is a resync or relist: its
// resource version did not change.
func isSyncUpdate(oldObj, newObj any) bool {
	n, err := meta.Accessor(newObj)
	if err != nil {
		return false
	}
	o, err := meta.Accessor(oldObj)
	if err != nil {
		return false
	}
	return n.GetResourceVersion() == o.GetResourceVersion()
}
