package listener

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	engine "github.com/kfanout/fanout/internal/listener"
)

// ProcessorOptions configures a Processor.
type ProcessorOptions struct {
	// UpstreamHasSynced is the source's sync signal: a listener has synced
	// once it is done and the listener's handler has handled every
	// initial-list add handed to it. Required.
	UpstreamHasSynced DoneChecker
	// Clock drives the wait after a handler panic. Nil means the real
	// clock.
	Clock clock.Clock
	// Logger is used for the processor's own messages. The zero value means
	// klog.Background().
	Logger klog.Logger
}

// Processor hands every notification it is given to each of its
// listeners, the way a shared informer does with its event handlers. All
// methods are safe for concurrent use.
type Processor struct {
	hub      *engine.Hub
	p        *engine.Processor
	upstream DoneChecker
}

// NewProcessor returns a processor with no listeners.
func NewProcessor(opts ProcessorOptions) *Processor {
	p := engine.NewProcessor(engine.ProcessorOptions{Clock: opts.Clock, Logger: opts.Logger})
	return &Processor{hub: engine.NewHub(p, nil), p: p, upstream: opts.UpstreamHasSynced}
}

// NewListener returns a listener for handler configured by opts. It is not
// yet added: pass it to AddListener. It fails if handler or the
// processor's UpstreamHasSynced is nil, or opts are invalid.
func (p *Processor) NewListener(handler Handler, opts Options) (*Listener, error) {
	if p.upstream == nil {
		return nil, errors.New("listener: ProcessorOptions.UpstreamHasSynced is nil")
	}
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("listener: %w", err)
	}
	return p.p.NewListener(handler, engine.Binding{UpstreamHasSynced: p.upstream}, opts)
}

// AddListener adds l, which must come from this processor's NewListener.
// When current is not nil, l first gets each object current returns as an
// initial-list add (its starting state, queued without waiting for room),
// and then every notification distributed after that, exactly once:
// current is called while distribution is held off.
func (p *Processor) AddListener(l *Listener, current func() []any) error {
	if current == nil {
		current = noObjects
	}
	return p.hub.Register(l, current)
}

// noObjects is the current state of a listener added without one.
func noObjects() []any { return nil }

// RemoveListener removes the listener behind handle; its pending
// notifications are dropped. An unknown or already removed listener is
// not an error.
func (p *Processor) RemoveListener(handle any) error {
	return p.hub.Remove(handle)
}

// Distribute hands n to every listener. It never waits for a handler, only
// for each listener to take n (under OverflowBlock, for room). While the
// processor has listeners but is not running, it waits for Run.
func (p *Processor) Distribute(n Notification) {
	_ = p.hub.Apply(func(h Handler) error {
		switch n.Kind {
		case Add:
			h.OnAdd(n.Obj, n.IsInInitialList)
		case Update:
			h.OnUpdate(n.OldObj, n.Obj)
		case Delete:
			h.OnDelete(n.Obj)
		}
		return nil
	})
}

// Run starts every listener's goroutines, blocks until ctx is done, then
// stops and removes every listener and waits for their goroutines to
// return. A processor runs once.
func (p *Processor) Run(ctx context.Context) { p.p.Run(ctx) }
