// Package debugpage serves a live page about a process's fanout informers
// and their event handlers, in the spirit of net/http/pprof: which handler
// is behind, since when, and how fast it drains.
//
// A [Page] is an [net/http.Handler]. Informers are registered with it
// explicitly; nothing is global:
//
//	p := debugpage.New(debugpage.Options{})
//	if err := p.Register("pods", podInformer); err != nil { ... }
//	go p.Run(ctx) // optional: keeps the backlog history between visits
//	mux.Handle("/debug/informers", p)
//
// For every registered informer the page shows its name, resource, whether
// it has synced, the size of its store, the depth of its queue, its last
// resource version and how often its watch was restarted; for every handler
// its name, engine, overflow policy, Pending, HighWater, Delivered and its
// rate, Coalesced, Panics and OldestPendingAge, with an inline SVG
// sparkline of its backlog over the last minutes. A handler whose oldest
// pending notification is older than [Options.BehindAfter] is marked
// behind, in red. The page reloads itself every [Options.Refresh];
// "?format=json" returns the same figures as a [Snapshot].
//
// # Cost
//
// The page reads the figures [informer.StatsOf], [informer.HandlersOf] and
// [informer.InformerStatsOf] return; it adds nothing to the path of an
// event. Reading them takes a few short locks per handler, on each request
// and on each sample, and never waits for a handler: the queue depth of an
// informer whose consumer holds its queue's lock (a handler stalled under
// OverflowBlock) is shown as busy.
//
// # Sampling
//
// The sparkline and the delivery rate come from samples: [Page.Run] takes
// one every [Options.SampleInterval] on [Options.Clock], and a request takes
// one itself when the newest is older than that, so the page works without
// Run, with a history made of the visits. The history keeps
// [Options.Samples] samples per handler.
package debugpage
