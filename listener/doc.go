// Package listener delivers an informer's notifications to its event
// handlers: one Listener per handler, and a Processor that fans out to them
// (client-go's processorListener and sharedProcessor).
//
// Each listener calls its handler from its own goroutine, one notification at
// a time, in distribution order, and buffers without bound while the handler
// is behind, so a slow handler does not delay another (unless it opts into
// OverflowBlock, which makes the informer wait for room). A handler panic crashes
// the process, as in client-go, unless utilruntime.ReallyCrash is false; then
// the notification is skipped and the listener waits one second (on the
// processor's clock) before the next.
//
// # Engines
//
// Delivery is done by an engine behind an internal interface, chosen per
// listener (Options.Engine).
//
// The "direct" engine, the default, calls each handler from one goroutine.
// A listener that buffers without bound (OverflowGrow, no Workers) reads
// the processor's shared log: Distribute appends each notification once,
// to segments of 256 entries that the garbage collector frees once every
// listener's cursor has passed them, and each listener reads at its own
// pace through its own cursor, woken only when it sleeps. A notification
// costs one append however many handlers there are, a pending one is
// stored once (40 bytes) for all the handlers that have not yet taken it,
// and the writer and the readers share no lock. Notifications meant for one
// listener alone (a late handler's replay, a resync that only some handlers
// take) wait in a small private queue, each marked with the log position
// it precedes, so every listener sees the order of Distribute and Add
// calls. A listener with an overload option (Overflow, MaxPending,
// Workers) keeps a mutex-guarded queue of its own instead, which the
// overload control works on.
//
// The "classic" engine keeps client-go's shape exactly: an unbuffered add
// channel, a pump goroutine with a one-notification lookahead that spills
// into a growing ring (package ringbuffer, initial size 1024) only when a
// second notification arrives before the first is taken, and a run
// goroutine that calls the handler. It is the fidelity reference; the
// listener tests run every behaviour on both engines (and on the direct
// engine's own queue). BENCHMARKS.md at the repository root compares them
// with client-go.
//
// With either engine, when more than 1024 notifications are pending each
// handler call is timed, as client-go's "processorListener handler" trace,
// and logged if it takes over 100 ms, provided klog's verbosity is 2 or
// more (below it client-go's trace prints nothing, so nothing is timed).
//
// # Use by the shared informer
//
//	p := listener.NewProcessor(listener.ProcessorOptions{Clock: clk})
//
// Registering a handler (AddEventHandlerWithOptions), under the informer's
// started lock:
//
//	l, err := p.NewListener(handler, listener.Binding{ // what the informer computes
//		UpstreamHasSynced:     informer.HasSyncedChecker(),
//		RequestedResyncPeriod: resync,
//		ResyncPeriod:          listener.DetermineResyncPeriod(logger, resync, checkPeriod),
//	}, listener.Options{Logger: logger}) // what the handler's owner chose
//	if !informerStarted {
//		_, err = p.AddListener(l) // Run starts it later
//		return l, err
//	}
//	// Started: hold the delta lock so no Distribute interleaves the replay.
//	blockDeltas.Lock()
//	defer blockDeltas.Unlock()
//	if _, err := p.AddListener(l); err != nil { ... } // starts delivery, not the sync watch
//	for _, obj := range indexer.List() {
//		l.Replay(listener.NewAdd(obj, true)) // counted by l.HasSynced; never waits for room
//	}
//	p.StartWatchSynced(l) // now "upstream synced" may complete l's sync
//	return l, nil
//
// The returned *Listener is the registration: HasSynced, HasSyncedChecker and
// ShutdownChan (closed when it will call its handler no more, which is what
// ShutDownEventHandler waits for).
//
// Resyncs: the controller's ShouldResync is p.ShouldResync; when a handler
// added before start lowers the informer's check period, call
// p.ResyncCheckPeriodChanged(logger, newPeriod).
//
// Processing a delta: under the delta lock, write the store and call
// p.BeginDistribute for each notification (listener.NewAdd(obj,
// isInInitialList) with sync false, listener.NewUpdate(old, new) with sync
// true when the resource version is unchanged, listener.NewDelete(obj) with
// sync false); after releasing it, call Finish on each returned Handoff in
// order. A handoff waiting for room
// (OverflowBlock) then holds up no registration or removal.
//
// RemoveEventHandler: under the delta lock, p.RemoveListener(handle), which
// also frees a handoff waiting for room in that listener.
//
// Running: go p.Run(ctx) on a context that ends after the controller has
// stopped; Run returns when every listener's goroutines have. When the
// informer's own context is done, p.Unblock lets a Distribute waiting for
// room return, so that the controller can stop first.
//
// # Locking
//
// Distribute takes no lock of the processor's: it reads an immutable
// snapshot of the listener set, which AddListener, RemoveListener,
// ShouldResync and Run replace under the processor's mutex. A handoff that
// waits (the classic engine's channel send, OverflowBlock) therefore holds
// up none of them; removing or stopping a listener frees a Distribute
// waiting on it. docs/architecture.md at the repository root gives the lock
// order from the informer down.
package listener
