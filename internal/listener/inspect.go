package listener

// Config is the delivery configuration a listener runs with, as chosen when
// it was created. It is for inspection (debug pages, logs); it does not
// change while the listener lives.
type Config struct {
	// Engine is the engine the listener runs on (see Listener.Engine).
	Engine Engine
	// Overflow is the overflow policy; OverflowGrow on the classic engine
	// and on a listener that reads the shared log.
	Overflow OverflowPolicy
	// MaxPending is the threshold of Overflow; 0 means none.
	MaxPending int
	// Workers is the number of keyed workers; 1 when the handler is
	// called from one goroutine.
	Workers int
	// RecoverPanics reports whether handler panics are recovered.
	RecoverPanics bool
}

// Config returns the listener's delivery configuration. It takes no lock
// and is safe for concurrent use.
func (l *Listener) Config() Config { return l.config }

// configOf is the configuration a listener on e runs with, given opts.
func configOf(e engine, opts Options) Config {
	c := Config{Engine: e.kind(), Overflow: OverflowGrow, Workers: 1, RecoverPanics: opts.RecoverPanics}
	if e.kind() == EngineDirect && !e.readsLog() {
		c.Overflow = opts.Overflow
		c.MaxPending = opts.MaxPending
		c.Workers = max(opts.Workers, 1)
	}
	return c
}

// Listeners returns the processor's listeners in the order they were added.
// The slice is a copy; it is safe for concurrent use.
func (p *Processor) Listeners() []*Listener {
	all := p.set.Load().all
	out := make([]*Listener, len(all))
	for i, m := range all {
		out[i] = m.l
	}
	return out
}
