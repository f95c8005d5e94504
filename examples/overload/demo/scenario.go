package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kfanout/fanout/informer"
)

// Handler indexes in Result.Handlers.
const (
	Fast = iota
	Slow
	Stalled
	NumHandlers
)

// HandlerNames are the handlers' names, by index.
var HandlerNames = [NumHandlers]string{"fast", "slow", "stalled"}

// HandlerResult is one handler's outcome in a run.
type HandlerResult struct {
	Delivered  uint64 // handler calls
	MaxBacklog int64  // the largest backlog seen (fanout: the listener's HighWater)
	Pending    int64  // still waiting when the drain ended
	Coalesced  int64  // notifications merged away; -1 for a library without coalescing
}

// Sample is one point of the chart.
type Sample struct {
	At      time.Duration // since the load started
	HeapMiB float64
	Backlog [NumHandlers]int64
}

// Result is the outcome of one scenario.
type Result struct {
	Title   string
	Skipped string // why the scenario did not run; empty if it ran

	Objects  int
	Produced uint64
	Handlers [NumHandlers]HandlerResult
	Current  int // objects whose newest version the stalled handler reached

	PeakHeap  uint64 // largest heap sampled
	EndHeap   uint64 // live heap when the load stopped, after a GC
	FinalHeap uint64 // live heap once the informer stopped, after a GC

	LoadEnd time.Duration // when the load stopped (and stalled was released)
	Samples []Sample
}

// Statser is what every registration returned by AddEventHandler* offers.
type Statser interface {
	Stats() informer.ListenerStats
}

// runScenario runs one scenario to the end and stops everything it
// started before it returns.
func runScenario(ctx context.Context, cfg Config, newSource NewSourceFunc, sc scenario) (*Result, error) {
	res := &Result{Title: sc.Title, Objects: cfg.Objects}
	src, err := newSource(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	inf := sc.newSubject(src, cfg)

	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	fastH := &fastHandler{}
	slowH := &slowHandler{ctx: runCtx, delay: cfg.SlowDelay}
	stalledH := newStalledHandler()
	released := false
	defer func() {
		if !released {
			close(stalledH.release)
		}
	}()

	var regs [NumHandlers]Statser
	for i, h := range [NumHandlers]handlerFuncs{fastH.funcs(), slowH.funcs(), stalledH.funcs()} {
		reg, err := inf.addHandler(HandlerNames[i], h, i != Fast)
		if err != nil {
			return nil, fmt.Errorf("adding handler %s: %w", HandlerNames[i], err)
		}
		regs[i] = reg
	}
	cfg.Live.set(sc.Title, regs)
	if cfg.Debug != nil {
		unregister, err := inf.showOn(cfg.Debug, sc.Title)
		if err != nil {
			return nil, err
		}
		defer unregister()
	}

	var informerDone sync.WaitGroup
	informerDone.Go(func() { inf.run(runCtx) })
	defer informerDone.Wait()
	if err := waitFor(runCtx, inf.hasSynced); err != nil {
		return nil, errors.Join(errors.New("informer did not sync"), ctx.Err())
	}
	if err := waitFor(runCtx, func() bool { return src.Watching() }); err != nil {
		return nil, fmt.Errorf("informer did not start watching: %w", err)
	}

	// The load.
	mon := newMonitor(cfg, regs, src.Produced)
	loadCtx, stopLoad := context.WithTimeout(runCtx, cfg.Duration)
	defer stopLoad()
	var producer sync.WaitGroup
	maxLag := uint64(max(cfg.Rate/2, 1000))
	producer.Go(func() { src.Produce(loadCtx, cfg.Rate, maxLag, fastH.updates.Load) })
	mon.watch(loadCtx, nil)
	producer.Wait()
	res.Produced = src.Produced()
	res.LoadEnd = mon.elapsed()
	res.EndHeap = liveHeapAfterGC()

	// Release the stalled handler and let it drain briefly; keep sampling
	// while it does.
	close(stalledH.release)
	released = true
	drainCtx, stopDrain := context.WithTimeout(runCtx, cfg.Drain)
	mon.watch(drainCtx, func() bool {
		return regs[Stalled].Stats().Pending == 0 && fastH.updates.Load() == res.Produced
	})
	stopDrain()
	mon.endLine()
	// Read the counters before stopping: once the run's context is done
	// the slow handler no longer waits, and would race through its backlog
	// until its listener stops.
	for i, r := range regs {
		st := r.Stats()
		res.Handlers[i] = HandlerResult{Delivered: st.Delivered, MaxBacklog: st.HighWater, Pending: st.Pending, Coalesced: int64(st.Coalesced)}
		if !sc.coalesces {
			res.Handlers[i].Coalesced = -1
		}
	}

	cancelRun()
	informerDone.Wait()
	latest, err := src.Latest(ctx)
	if err != nil {
		return nil, fmt.Errorf("newest versions: %w", err)
	}
	res.Current = stalledH.current(latest)
	res.PeakHeap = mon.peakHeap
	res.Samples = mon.samples
	res.FinalHeap = liveHeapAfterGC()
	return res, ctx.Err()
}

// waitFor polls cond until it holds or ctx is done.
func waitFor(ctx context.Context, cond func() bool) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}
