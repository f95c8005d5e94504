package debugpage

import (
	"context"
	"time"

	"github.com/kfanout/fanout/informer"
)

// sample is one handler's figures at one time.
type sample struct {
	at        time.Time
	pending   int64
	delivered uint64
}

// ring keeps the newest samples of one handler, oldest first.
type ring struct {
	buf  []sample // len(buf) == capacity once full
	next int      // where the next sample goes once full
	full bool
}

// add appends s, dropping the oldest sample once the ring holds n.
func (r *ring) add(s sample, n int) {
	if !r.full {
		r.buf = append(r.buf, s)
		if len(r.buf) == n {
			r.full = true
		}
		return
	}
	r.buf[r.next] = s
	r.next = (r.next + 1) % len(r.buf)
}

// all returns the samples, oldest first, in a new slice.
func (r *ring) all() []sample {
	out := make([]sample, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}

// reading is what one read of a registered informer returned.
type reading struct {
	name     string
	stats    informer.InformerStats
	handlers []informer.HandlerStats
	sync     informer.SyncStatus
}

// read takes the current figures of every registered informer, without
// holding the page's lock.
func (p *Page) read() []reading {
	var out []reading
	for _, ni := range p.registered() {
		st, ok := informer.InformerStatsOf(ni.inf)
		if !ok {
			continue
		}
		hs, _ := informer.HandlersOf(ni.inf)
		sync, _ := informer.SyncStatusOf(ni.inf)
		out = append(out, reading{name: ni.name, stats: st, handlers: hs, sync: sync})
	}
	return out
}

// recordLocked adds one sample per handler of rs, taken at now, and drops
// the history of handlers rs no longer lists.
func (p *Page) recordLocked(now time.Time, rs []reading) {
	seen := make(map[handlerKey]bool, len(p.history))
	for _, r := range rs {
		if _, ok := p.informers[r.name]; !ok {
			continue // unregistered meanwhile
		}
		for _, h := range r.handlers {
			k := handlerKey{r.name, h.Registration}
			seen[k] = true
			hist := p.history[k]
			if hist == nil {
				hist = &ring{}
				p.history[k] = hist
			}
			hist.add(sample{at: now, pending: h.Stats.Pending, delivered: h.Stats.Delivered}, p.opts.Samples)
		}
	}
	for k := range p.history {
		if !seen[k] {
			delete(p.history, k)
		}
	}
	p.lastSample = now
}

// Sample records one sample of every handler's backlog and delivered count
// now, on Options.Clock. Run calls it every Options.SampleInterval; tests
// and callers with their own schedule may call it directly.
func (p *Page) Sample() {
	rs := p.read()
	now := p.opts.Clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.recordLocked(now, rs)
}

// Run samples every Options.SampleInterval until ctx is done, then
// returns. It is optional (see the package documentation); run it at most
// once at a time.
func (p *Page) Run(ctx context.Context) {
	t := p.opts.Clock.NewTicker(p.opts.SampleInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			p.Sample()
		}
	}
}
