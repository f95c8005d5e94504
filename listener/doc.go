// Package listener delivers notifications to event handlers: one Listener
// per handler, fed by a Processor (client-go's processorListener and
// sharedProcessor). The informer package delivers its events through it;
// a program with its own source of changes can use a Processor directly.
//
// Each listener calls its handler from its own goroutine, one notification
// at a time, in distribution order. By default it buffers without bound
// while the handler is behind, as client-go does, so a slow handler delays
// no other. Options bound that buffer per handler: OverflowCoalesce keeps
// at most one pending notification per object past a threshold, and
// OverflowBlock makes distribution wait for room, which holds up every
// other handler of the same processor too (that is the point of
// backpressure). Workers parallelises a slow handler while keeping each
// object's notifications in order. Stats reports a listener's counters.
//
// A handler panic crashes the process, as in client-go, unless
// Options.RecoverPanics is set or utilruntime.ReallyCrash is false.
package listener
