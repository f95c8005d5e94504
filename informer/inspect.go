package informer

import (
	"fmt"
	"runtime"

	"github.com/kfanout/fanout/listener"
)

// InformerStats is a snapshot of one shared informer's state, for debug
// pages and logs. Reading it costs a few lock acquisitions and no
// allocation per object; nothing on the event path reads or writes it.
type InformerStats struct {
	// Name is the informer's name in the listener metrics (ListenerID's
	// Informer): its Identifier's name, its ObjectDescription, or its
	// object type.
	Name string
	// ObjectType is the Go type of the informer's objects, e.g. "*v1.Pod".
	ObjectType string
	// Resource is the Identifier's group/version/resource, "" without one.
	Resource string
	// Started and Stopped tell whether Run has started and returned.
	Started, Stopped bool
	// Synced is HasSynced.
	Synced bool
	// StoreSize is the number of objects in the cache.
	StoreSize int
	// QueueDepth is the number of keys (DeltaFIFO) or items (RealFIFO)
	// waiting in the informer's queue; -1 before Run, or when the queue's
	// lock was held by its consumer every time it was tried (see
	// QueueBusy).
	QueueDepth int
	// QueueBusy is true when QueueDepth could not be read because the
	// queue's consumer held its lock, which a stalled OverflowBlock
	// handler does for as long as it stalls.
	QueueBusy bool
	// LastSyncResourceVersion is LastSyncResourceVersion.
	LastSyncResourceVersion string
	// WatchesStarted counts the watch streams the reflector opened; every
	// one after the first is a restart (after a timeout, an error or a
	// relist).
	WatchesStarted uint64
	// IndexRefusals counts the writes to the cache that an index function
	// refused (each dropped only that write), and LastIndexRefusal is the
	// newest of them, nil if there was none.
	IndexRefusals    uint64
	LastIndexRefusal *IndexRefusal
}

// HandlerStats describes one handler registration of a shared informer:
// its configuration and its counters.
type HandlerStats struct {
	// Registration is the handle AddEventHandler returned.
	Registration ResourceEventHandlerRegistration
	// Name is HandlerOptions.Name, or the name derived from the handler.
	Name string
	// Config is the engine and overload configuration.
	Config listener.Config
	// Synced is the registration's HasSynced.
	Synced bool
	// Stats are the counters StatsOf returns.
	Stats ListenerStats
}

// queueLenTries is how often InformerStatsOf tries the queue's lock
// before it reports the depth as busy.
const queueLenTries = 64

// InformerStatsOf returns a snapshot of inf, which must be an informer
// built by this package (or a typed wrapper of one); ok is false for any
// other. It never waits for the queue's consumer: see
// InformerStats.QueueBusy.
func InformerStatsOf(inf SharedInformer) (stats InformerStats, ok bool) {
	s, ok := unwrapInformer(inf)
	if !ok {
		return InformerStats{}, false
	}
	stats = InformerStats{
		Name:       s.metricsName,
		ObjectType: fmt.Sprintf("%T", s.objectType),
		Synced:     s.HasSynced(),
		QueueDepth: -1,
	}
	if s.identifier.Reserved() {
		stats.Resource = s.identifier.GroupVersionResource().String()
	}
	if c, ok := s.indexer.(*cache); ok {
		stats.StoreSize = c.storage.len()
		stats.IndexRefusals, stats.LastIndexRefusal = c.refusals.snapshot()
	} else {
		stats.StoreSize = len(s.indexer.ListKeys())
	}
	s.startedLock.Lock()
	stats.Started, stats.Stopped = s.started, s.stopped
	ctl, _ := s.controller.(*controller)
	s.startedLock.Unlock()
	if ctl == nil {
		return stats, true
	}
	stats.LastSyncResourceVersion = ctl.LastSyncResourceVersion()
	ctl.mu.RLock()
	if ctl.reflector != nil {
		stats.WatchesStarted = ctl.reflector.watchesStarted.Load()
	}
	ctl.mu.RUnlock()
	stats.QueueDepth, stats.QueueBusy = queueDepth(ctl.config.Queue)
	return stats, true
}

// queueDepth reads q's length without waiting for its lock.
func queueDepth(q Queue) (depth int, busy bool) {
	a, ok := queueAccess(q)
	if !ok {
		return -1, false
	}
	for range queueLenTries {
		if n, ok := a.TryLen(); ok {
			return n, false
		}
		runtime.Gosched()
	}
	return -1, true
}

// HandlersOf returns the handler registrations of inf in the order they
// were added, each with its configuration and counters; ok is false when
// inf was not built by this package. Registrations removed, or cleared by
// the informer's stop, are not listed.
func HandlersOf(inf SharedInformer) (handlers []HandlerStats, ok bool) {
	s, ok := unwrapInformer(inf)
	if !ok {
		return nil, false
	}
	for _, l := range s.processor.Listeners() {
		handlers = append(handlers, HandlerStats{
			Registration: l,
			Name:         l.Name(),
			Config:       l.Config(),
			Synced:       l.HasSynced(),
			Stats:        l.Stats(),
		})
	}
	return handlers, true
}

// unwrapInformer finds the sharedIndexInformer behind inf.
func unwrapInformer(inf SharedInformer) (*sharedIndexInformer, bool) {
	for range 8 { // wrappers nest at most a few deep
		switch v := inf.(type) {
		case *sharedIndexInformer:
			return v, v != nil
		case interface{ unwrapShared() SharedIndexInformer }:
			inf = v.unwrapShared()
		default:
			return nil, false
		}
	}
	return nil, false
}

// unwrapShared returns the informer a typed informer wraps.
func (s typedSharedIndexInformer[T]) unwrapShared() SharedIndexInformer { return s.SharedIndexInformer }

// countWatch counts a watch stream opened without error.
func (r *Reflector) countWatch(err error) {
	if err == nil {
		r.watchesStarted.Add(1)
	}
}

// WatchesStarted returns the number of watch streams the reflector has
// opened, including one handed over by a watch-list stream.
func (r *Reflector) WatchesStarted() uint64 { return r.watchesStarted.Load() }
