// Package listener is the delivery engine behind the informer and the
// public package listener: one Listener per handler, and a Processor that
// fans out to them (client-go's processorListener and sharedProcessor).
// It is internal because its protocol with the informer (the Hub, the
// Binding a registration gets, the resync bookkeeping) is not API; the
// public package re-exports the user-facing names.
//
// Each listener calls its handler from its own goroutine, one notification
// at a time, in distribution order, and by default buffers without bound
// while the handler is behind, so that a slow handler delays no other.
// OverflowBlock is the exception: distribution then waits for room in the
// handler's buffer, which holds up every other handler of the informer
// too. A handler panic crashes the process, as in client-go, unless
// RecoverPanics is set or utilruntime.ReallyCrash is false; then the
// notification is skipped and the listener waits one second (on the
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
// # The hub
//
// An informer delivers through a [Hub], the one owner of a change's
// critical section. Per popped item the informer calls [Hub.Apply] once:
// under the hub's delta lock, the informer's store write runs and reports
// each change to the Handler the hub gives it, and each change is handed
// to the listeners of the moment (appended to the shared log, or begun for
// the others); once the lock is released, the handoffs that may wait (the
// classic engine's channel send, OverflowBlock) are finished in order.
// [Hub.Register] adds a handler to a running informer in one step under
// the same lock: add the listener, replay the store to it as initial-list
// adds (never waiting for room), start its sync watch. So a late handler
// gets each change exactly once: in the replay if the change was written
// before it joined, by the handoff otherwise. A handoff waiting for room
// holds up no registration or removal, since the lock is released by then.
//
// The public package's Processor, for programs with their own source of
// changes, is a Processor with a Hub: its Distribute is one Hub.Apply, and
// its AddListener one Hub.Register.
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
