package listener

import "k8s.io/klog/v2"

// traceCheckEvery is how many handler calls a traceGate answers from its
// cached verbosity before asking klog again.
const traceCheckEvery = 256

// traceGate tells one delivering goroutine whether klog's verbosity lets a
// "processorListener handler" trace be logged at all: client-go's trace
// prints nothing below verbosity 2, so below it fanout does not time the
// calls either, and a backlog costs no clock reads. The answer is cached for
// traceCheckEvery calls, so a verbosity change takes effect within them.
// The zero value is ready; a traceGate belongs to one goroutine.
type traceGate struct {
	left int
	on   bool
}

// enabled reports whether traces can be logged.
func (g *traceGate) enabled() bool {
	if g.left == 0 {
		g.on = klog.V(2).Enabled()
		g.left = traceCheckEvery
	}
	g.left--
	return g.on
}

// notificationSource is what runLoop takes notifications from: next waits
// for the next one and takes it, reporting false once the listener is
// stopped; pending is what is left.
type notificationSource interface {
	next() (n Notification, pending int64, ok bool)
}

// runLoop calls l's handler for each notification src.next returns, in
// order, until next reports the listener stopped. Both forms of the direct engine
// run it. As in client-go, a call made while more than initialBufferSize
// notifications are pending is timed and logged if slow, as the
// "processorListener handler" trace (when klog's verbosity lets it be
// logged; see traceGate).
//
// It takes an interface rather than a method value: calling next through a
// method value cost about 13% more CPU per delivery at 10 handlers (see
// BENCHMARKS.md, round two).
func runLoop(l *Listener, src notificationSource) {
	defer l.enterCaller()()
	crashed := false
	var tg traceGate
	for {
		n, pending, ok := src.next()
		if !ok {
			return
		}
		if crashed {
			l.waitAfterCrash()
		}
		crashed = l.deliver(n, pending, pending > initialBufferSize && tg.enabled())
		l.returned(n.Seq, pending)
	}
}
