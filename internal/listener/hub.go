package listener

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
)

// Hub is the one owner of the critical section of an informer's changes:
// it holds the delta lock while the informer writes its store and fixes,
// for each change written, the listeners that receive it; it releases the
// lock, then finishes the handoffs that may wait. It also registers a
// handler as one step under the same lock: add the listener, replay the
// store to it, start its sync watch.
//
// The informer calls the hub once per popped item ([Hub.Apply]); nothing
// else of the delivery path crosses from the informer into this package.
type Hub struct {
	p       *Processor
	observe func(obj any) // sees each added or updated object; may be nil

	// mu is the delta lock: held while the store is written and the
	// listeners of each change are fixed, and while a late handler is
	// added and replayed, so that a late handler gets the store and then
	// every later change exactly once.
	mu sync.Mutex
	// pending holds the handoffs begun under mu, finished in order after
	// mu is released. Only the goroutine in Apply uses it.
	pending []handoff
	// seq is the Seq of the last change distributed; guarded by mu.
	seq uint64
}

// NewHub returns the hub of p. observe, when not nil, is called under the
// delta lock with every object added or updated (the informer's mutation
// detector).
func NewHub(p *Processor, observe func(obj any)) *Hub {
	return &Hub{p: p, observe: observe}
}

// Apply calls write with the delta lock held. write writes the store and
// reports each change it made, in order, to the Handler it is given; each
// is handed to the listeners there and then (an update whose resource
// version did not change is a resync, for the listeners due for one). The
// part of the handoff that may wait (the classic engine's channel send,
// OverflowBlock) is done after the lock is released, in the same order,
// so that a handler waiting for room holds up no registration or removal.
// Apply is called by one goroutine at a time (the informer's controller).
func (h *Hub) Apply(write func(Handler) error) error {
	defer h.finish()
	h.mu.Lock()
	defer h.mu.Unlock()
	return write((*hubSink)(h))
}

// finish hands the notifications begun under the delta lock to the
// listeners that may make it wait, and keeps the slice's memory.
func (h *Hub) finish() {
	for i := range h.pending {
		h.pending[i].finish()
	}
	clear(h.pending)
	h.pending = h.pending[:0]
}

// Register adds l to the hub's processor. When replay is not nil (the
// informer is running), it does so under the delta lock, as one step: l
// is added, every object replay returns is queued to l as an initial-list
// add (without waiting for room: it is the handler's starting state), and
// then l starts watching for its sync. l must come from the processor's
// NewListener.
func (h *Hub) Register(l *Listener, replay func() []any) error {
	if replay == nil {
		_, err := h.p.AddListener(l)
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := h.p.AddListener(l); err != nil {
		return err
	}
	objs := replay()
	for _, obj := range objs {
		n := NewAdd(obj, true)
		n.Seq = h.seq
		l.replay(n)
	}
	if len(objs) == 0 {
		l.seqs.publish(h.seq) // nothing before now to wait for
	}
	h.p.StartWatchSynced(l)
	return nil
}

// Remove removes the listener behind handle under the delta lock; see
// [Processor.RemoveListener].
func (h *Hub) Remove(handle any) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.p.RemoveListener(handle)
}

// hubSink is the Handler Apply gives the store write: each change is begun
// at once, under the delta lock.
type hubSink Hub

func (s *hubSink) OnAdd(obj any, isInInitialList bool) {
	if s.observe != nil {
		s.observe(obj)
	}
	s.begin(NewAdd(obj, isInInitialList), false)
}

func (s *hubSink) OnUpdate(oldObj, newObj any) {
	if s.observe != nil {
		s.observe(newObj)
	}
	s.begin(NewUpdate(oldObj, newObj), isSyncUpdate(oldObj, newObj))
}

func (s *hubSink) OnDelete(obj any) {
	s.begin(NewDelete(obj), false)
}

func (s *hubSink) begin(n Notification, sync bool) {
	if !sync {
		s.seq++
		n.Seq = s.seq
	}
	if ho := s.p.beginDistribute(n, sync); ho.s != nil {
		s.pending = append(s.pending, ho)
	}
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
