package sharding

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/kfanout/fanout/internal/goid"
	"github.com/kfanout/fanout/internal/informermetrics"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kfanout/fanout/informer"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
)

// Options configure a ShardedInformer.
type Options struct {
	// Informer are the options of every per-range informer (fanout's
	// informer.NewSharedIndexInformerWithOptions); ObjectDescription gets
	// the range appended.
	Informer informer.SharedIndexInformerOptions
	// Key is the field objects are hashed by; KeyUID if empty.
	Key Key
	// Metrics receives objects per range, client-side filtering, owned
	// ranges and handover durations; none if nil.
	Metrics Metrics
	// DrainTimeout bounds a planned handover's wait for the handlers (see
	// ShardedInformer): DefaultDrainTimeout if 0; negative means no wait
	// (what is pending for the range is dropped). A handler call in
	// progress is waited for even after it.
	DrainTimeout time.Duration
	// Clock times DrainTimeout: Ring's Clock if nil, or the real clock.
	Clock clock.Clock
	// Ring is the ring RunWithContext and Run take part in. Without it
	// they report an error and return; the informer can still be driven by
	// a Coordinator of your own (it is a Target).
	Ring *Config
}

// ShardedInformer is a SharedIndexInformer over the ranges its replica
// owns: one fanout informer per owned range, started when the range is
// gained and stopped when it is lost, whose lists and watches carry the
// range's shard selector.
//
// Handlers see a gained range's objects as initial-list adds (HasSynced
// of a registration covers every range owned at the time) and a lost
// range's objects as deletes of their last known state, wrapped in
// informer.DeletedFinalStateUnknown so a handler can tell them from real
// deletions.
//
// A planned handover (the ring changed; StopRange with graceful) drains
// the range first: its source is frozen (nothing more of it reaches the
// informer), and StopRange waits until every handler, keyed workers
// included, has returned from its call with the final state of every
// object of the range (or its deletion), for at most
// Options.DrainTimeout; meanwhile the indexer still serves the range.
// Then the handlers are removed, the deletes delivered, and StopRange
// returns, after which the coordinator releases the claim, and only then
// can the new owner list the range. When the timeout passes, or the claim is lost (a forced stop), what is still
// pending for the range is dropped. The drain matches objects by
// namespace/name key and resourceVersion, and costs a map of key to
// resourceVersion per range and per handler. Calls to one handler are sequential across
// ranges, as for a single informer, unless its HandlerOptions.Workers is
// more than 1 (then calls for different keys run concurrently, and one
// object's calls stay in order: an object never changes range). With
// KeyUID, an object deleted and created again under its name is another
// object, likely in another range: the new one's add may come before the
// old one's delete, even to one replica's handler. The indexer serves the
// owned ranges' objects only.
//
// It implements informer.SharedIndexInformer; LastSyncResourceVersion is
// "" (every range has its own) and GetController's Run does nothing.
type ShardedInformer struct {
	lw       informer.ListerWatcher
	example  runtime.Object
	opts     Options
	key      Key
	metrics  Metrics
	noShards sync.Once

	mu       sync.Mutex
	ranges   map[int]*rangeInformer // the ranges delivered now
	handlers []*registration
	indexers informer.Indexers
	// Set before the first range starts; applied to every range informer.
	transform        informer.TransformFunc
	watchErrorHandle informer.WatchErrorHandlerWithContext
	started, stopped bool
	life             shardedLife // Shutdown's view of Run
	// settled is set after the first coordinator round: until then the
	// set of owned ranges is unknown and nothing is synced.
	settled bool
	synced  *doneChecker
	// draining are the ranges a graceful StopRange is draining: no longer
	// owned, still served by the indexer.
	draining map[int]*rangeInformer
	clock    clock.Clock

	wg sync.WaitGroup // range informers, sync watchers, removal deliveries
}

// rangeInformer is one owned range's informer and its handler
// registrations. Its fields are written under ShardedInformer.mu while the
// range is in ShardedInformer.ranges, and owned by StopRange after.
type rangeInformer struct {
	r    Range
	inf  informer.SharedIndexInformer
	lw   *rangeListerWatcher
	regs map[*registration]informer.ResourceEventHandlerRegistration
	// trackers wrap each registration's handler on this range.
	trackers map[*registration]*drainTracker
	// outside is each registration's ShutdownChan, as seen from outside
	// its handler.
	outside   map[*registration]<-chan struct{}
	abort     chan struct{} // closed by a forced stop during a drain
	abortOnce sync.Once
	ctx       context.Context // ends when the range stops
	cancel    context.CancelFunc
	done      chan struct{} // closed when the informer's Run returned
}

var (
	_ informer.SharedIndexInformer = &ShardedInformer{}
	_ ring.Target                  = &ShardedInformer{}
)

// NewShardedInformer returns a sharded informer of lw's objects, which look
// like exampleObject. It owns no range until the ring's coordinator (RunWithContext
// with Options.Ring) starts some.
func NewShardedInformer(lw informer.ListerWatcher, exampleObject runtime.Object, opts Options) *ShardedInformer {
	key := opts.Key
	if key == "" {
		key = KeyUID
	}
	metrics := opts.Metrics
	if metrics == nil {
		metrics = ring.NoMetrics{}
	}
	clk := opts.Clock
	if clk == nil && opts.Ring != nil {
		clk = opts.Ring.Clock
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &ShardedInformer{
		lw: lw, example: exampleObject, opts: opts, key: key, metrics: metrics, clock: clk,
		ranges:   map[int]*rangeInformer{},
		draining: map[int]*rangeInformer{},
		indexers: maps.Clone(opts.Informer.Indexers),
		synced:   newDoneChecker("sharded informer"),
	}
}

// RunWithContext takes part in Options.Ring until ctx is done, delivering
// the ranges the replica owns; on return every range is stopped and handed
// over (its claims released) and no handler is called any more.
func (s *ShardedInformer) RunWithContext(ctx context.Context) {
	if s.opts.Ring == nil {
		klog.FromContext(ctx).Error(errors.New("Options.Ring is nil"), "Sharded informer cannot run")
		return
	}
	s.mu.Lock()
	if s.started || s.life.shutDown {
		s.mu.Unlock()
		klog.FromContext(ctx).Info("Warning: the sharded informer has started, run more than once is not allowed")
		return
	}
	s.started = true
	ctx, ran := s.runContextLocked(ctx)
	s.mu.Unlock()
	defer ran()
	defer s.stop()
	c, err := ring.NewCoordinator(*s.opts.Ring, s, ring.CoordinatorOptions{Metrics: s.metrics})
	if err != nil {
		klog.FromContext(ctx).Error(err, "Sharded informer cannot run")
		return
	}
	c.Run(ctx)
}

// Run is RunWithContext until stopCh is closed.
func (s *ShardedInformer) Run(stopCh <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stopCh:
			cancel()
		case <-ctx.Done():
		}
	}()
	s.RunWithContext(ctx)
}

// stop waits for every goroutine and marks the informer stopped.
func (s *ShardedInformer) stop() {
	s.mu.Lock()
	for _, ri := range s.ranges {
		ri.cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	if id := s.opts.Informer.Identifier; id.Reserved() {
		o := s.opts.Informer
		informermetrics.ReleaseInformer(o.InformerMetricsProvider, o.ListenerMetricsProvider, id, id.Name())
	}
}

// releaseRangeMetrics releases the series of a range informer whose Run
// has returned: its handlers' went as their listeners stopped; its own
// are released by a Shutdown after Run, unless every range shares the
// informer identity of Options.Informer (stop releases that one once the
// last range has stopped).
func (s *ShardedInformer) releaseRangeMetrics(inf informer.SharedIndexInformer) {
	if s.opts.Informer.Identifier.Reserved() {
		return
	}
	if fi, ok := inf.(informer.FanoutInformer); ok { // always: ranges run fanout informers
		_ = fi.Shutdown(context.Background()) // Run has returned: it does not wait
	}
}

// Wait returns once every goroutine the informer started has returned. Use
// it after the coordinator driving the informer has returned.
func (s *ShardedInformer) Wait() { s.wg.Wait() }

// StartRange starts range r's informer with every handler registered. It,
// StopRange and RoundDone are the calls of the ring's coordinator.
func (s *ShardedInformer) StartRange(ctx context.Context, r Range) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.ranges[r.Index]; ok || s.stopped || s.life.shutDown {
		return
	}
	if _, ok := s.draining[r.Index]; ok {
		// Only a Coordinator that lost the claim during a drain and won
		// it back gets here; the drain ends at once.
		s.draining[r.Index].abortDrain()
		return
	}
	opts := s.opts.Informer
	opts.Indexers = maps.Clone(s.indexers)
	desc := opts.ObjectDescription
	if desc == "" {
		desc = fmt.Sprintf("%T", s.example)
	}
	opts.ObjectDescription = desc + " range " + r.String()
	lw := newRangeListerWatcher(s.lw, r, s.key, s)
	inf := informer.NewSharedIndexInformerWithOptions(lw, s.example, opts)
	if s.transform != nil {
		_ = inf.SetTransform(s.transform) // cannot fail before Run
	}
	if s.watchErrorHandle != nil {
		_ = inf.SetWatchErrorHandlerWithContext(s.watchErrorHandle)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ri := &rangeInformer{
		r: r, inf: inf, lw: lw,
		regs:     map[*registration]informer.ResourceEventHandlerRegistration{},
		trackers: map[*registration]*drainTracker{},
		outside:  map[*registration]<-chan struct{}{},
		abort:    make(chan struct{}),
		ctx:      rctx, cancel: cancel, done: make(chan struct{}),
	}
	for _, reg := range s.handlers {
		s.addToRangeLocked(rctx, ri, reg)
	}
	s.ranges[r.Index] = ri
	s.wg.Go(func() {
		defer close(ri.done)
		inf.RunWithContext(rctx)
		s.releaseRangeMetrics(inf)
	})
	s.wg.Go(func() { s.watchSynced(rctx, inf.HasSyncedChecker()) })
}

// addToRangeLocked registers reg's handler on ri's informer.
func (s *ShardedInformer) addToRangeLocked(ctx context.Context, ri *rangeInformer, reg *registration) {
	t := newDrainTracker(reg.handler, ri.ctx.Done())
	rr, err := ri.inf.AddEventHandlerWithOptions(t, reg.opts)
	if err != nil {
		// The options were checked when reg was added; only a stopped
		// informer fails, and ri's has not stopped.
		klog.FromContext(ctx).Error(err, "Adding a handler to a range informer", "range", ri.r)
		return
	}
	ri.regs[reg] = rr
	ri.trackers[reg] = t
	if sc, ok := rr.(interface{ ShutdownChan() <-chan struct{} }); ok {
		ri.outside[reg] = sc.ShutdownChan()
	}
	s.wg.Go(func() { s.watchSynced(ctx, rr.HasSyncedChecker()) })
}

// watchSynced re-evaluates the sync checkers once c is done.
func (s *ShardedInformer) watchSynced(ctx context.Context, c informer.DoneChecker) {
	select {
	case <-c.Done():
		s.checkSynced()
	case <-ctx.Done():
	}
}

// StopRange stops range r. Graceful: it drains the range (see
// ShardedInformer) while the indexer still serves it, then removes its
// handlers, stops the range informer, stops serving it, delivers the
// range's objects as deletes, and returns (earlier if ctx is done).
// Forced: the indexer stops serving r and its handlers are removed at
// once (a drain in progress ends), the rest happens on a goroutine, and it
// returns at once.
func (s *ShardedInformer) StopRange(ctx context.Context, r Range, graceful bool) {
	s.mu.Lock()
	ri, ok := s.ranges[r.Index]
	delete(s.ranges, r.Index)
	if !ok {
		// A forced stop overtaking a drain ends it.
		if d, draining := s.draining[r.Index]; draining && !graceful {
			delete(s.draining, r.Index)
			s.mu.Unlock()
			d.abortDrain()
			s.removeRangeHandlers(d)
		} else {
			s.mu.Unlock()
		}
		return
	}
	if graceful {
		s.draining[r.Index] = ri
	}
	s.mu.Unlock()
	s.checkSynced()
	if !graceful {
		s.removeRangeHandlers(ri)
		s.metrics.RangeObjects(r, 0)
		s.wg.Go(func() { s.finishRange(context.WithoutCancel(ctx), ri) })
		return
	}
	s.drainRange(ctx, ri)
	s.removeRangeHandlers(ri)
	s.mu.Lock()
	if s.draining[r.Index] == ri {
		delete(s.draining, r.Index)
	}
	s.mu.Unlock()
	s.metrics.RangeObjects(r, 0)
	s.finishRange(ctx, ri)
}

// removeRangeHandlers removes ri's handler registrations and stops its
// informer.
func (s *ShardedInformer) removeRangeHandlers(ri *rangeInformer) {
	s.mu.Lock()
	rrs := make([]informer.ResourceEventHandlerRegistration, 0, len(ri.regs))
	for _, rr := range ri.regs {
		rrs = append(rrs, rr)
	}
	s.mu.Unlock()
	for _, rr := range rrs {
		_ = ri.inf.RemoveEventHandler(rr)
	}
	ri.cancel()
}

// abortDrain ends a drain in progress.
func (ri *rangeInformer) abortDrain() { ri.abortOnce.Do(func() { close(ri.abort) }) }

// finishRange waits for ri's handlers and informer to stop, then tells
// each handler still registered that the range's objects are gone: those
// of the range's store, and those the handler was told of that the store
// no longer holds (their deletes were pending when the range stopped).
func (s *ShardedInformer) finishRange(ctx context.Context, ri *rangeInformer) {
	for _, rr := range ri.regs {
		if sc, ok := rr.(interface{ ShutdownChan() <-chan struct{} }); ok {
			select {
			case <-sc.ShutdownChan():
			case <-ctx.Done():
				return
			}
		}
	}
	select {
	case <-ri.done:
	case <-ctx.Done():
		return
	}
	objs := ri.inf.GetStore().List()
	keys := make([]string, 0, len(objs))
	stored := make(map[string]bool, len(objs))
	for _, obj := range objs {
		key, err := informer.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			key = ""
		}
		keys = append(keys, key)
		stored[key] = true
	}
	id := goid.Current()
	for reg := range ri.regs {
		if reg.isRemoved() {
			continue
		}
		var beyond map[string]interface{}
		if t := ri.trackers[reg]; t != nil {
			beyond = t.toldBeyond(stored)
		}
		if len(objs) == 0 && len(beyond) == 0 {
			continue
		}
		done := reg.startFinishing(id)
		defer done()
		for i, obj := range objs {
			if keys[i] != "" {
				reg.handler.OnDelete(informer.DeletedFinalStateUnknown{Key: keys[i], Obj: obj})
			}
		}
		for key, obj := range beyond {
			reg.handler.OnDelete(informer.DeletedFinalStateUnknown{Key: key, Obj: obj})
		}
	}
}

// RoundDone is called by the coordinator after each round: the owned set
// is known from the first one on.
func (s *ShardedInformer) RoundDone() {
	s.mu.Lock()
	s.settled = true
	ris := make([]*rangeInformer, 0, len(s.ranges))
	for _, ri := range s.ranges {
		ris = append(ris, ri)
	}
	s.mu.Unlock()
	for _, ri := range ris {
		s.metrics.RangeObjects(ri.r, len(ri.inf.GetStore().ListKeys()))
	}
	s.checkSynced()
}

// serverDoesNotShard logs, once per informer, that filtering happens on the
// client.
func (s *ShardedInformer) serverDoesNotShard(ctx context.Context) {
	s.noShards.Do(func() {
		if !linkedCanShard() {
			klog.FromContext(ctx).Info("The linked k8s.io/apimachinery predates v0.36 and cannot send a shard selector: filtering on the client, every range informer receives all objects", "object", fmt.Sprintf("%T", s.example))
			return
		}
		klog.FromContext(ctx).Info("The apiserver ignored the shard selector (no shardInfo in the list; is the ShardedListAndWatch feature gate off?): filtering on the client, every range informer receives all objects", "object", fmt.Sprintf("%T", s.example))
	})
}

// servedRanges returns the informers of the ranges the indexer serves:
// those delivered now and those draining.
func (s *ShardedInformer) servedRanges() []*rangeInformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*rangeInformer, 0, len(s.ranges)+len(s.draining))
	for _, ri := range s.ranges {
		out = append(out, ri)
	}
	for _, ri := range s.draining {
		out = append(out, ri)
	}
	return out
}

// ownedRanges returns the informers of the ranges delivered now.
func (s *ShardedInformer) ownedRanges() []*rangeInformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*rangeInformer, 0, len(s.ranges))
	for _, ri := range s.ranges {
		out = append(out, ri)
	}
	return out
}

// OwnedRanges returns the ranges delivered now, in no order.
func (s *ShardedInformer) OwnedRanges() []Range {
	var out []Range
	for _, ri := range s.ownedRanges() {
		out = append(out, ri.r)
	}
	return out
}

// HasSynced reports whether the first coordinator round is done and every
// owned range's informer holds its initial list.
func (s *ShardedInformer) HasSynced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hasSyncedLocked()
}

func (s *ShardedInformer) hasSyncedLocked() bool {
	if !s.settled {
		return false
	}
	for _, ri := range s.ranges {
		if !ri.inf.HasSynced() {
			return false
		}
	}
	return true
}

// HasSyncedChecker is HasSynced as a DoneChecker: done the first time
// HasSynced is true.
func (s *ShardedInformer) HasSyncedChecker() informer.DoneChecker { return s.synced }

// checkSynced closes the sync checkers whose condition now holds.
func (s *ShardedInformer) checkSynced() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hasSyncedLocked() {
		s.synced.finish()
	}
	for _, reg := range s.handlers {
		if reg.hasSyncedLocked() {
			reg.synced.finish()
		}
	}
}

// GetStore returns the merged, read-only view of the owned ranges' stores.
func (s *ShardedInformer) GetStore() informer.Store { return mergedIndexer{s} }

// GetIndexer returns the merged, read-only view of the owned ranges'
// indexers.
func (s *ShardedInformer) GetIndexer() informer.Indexer { return mergedIndexer{s} }

// GetController returns a Controller view; its Run does nothing.
func (s *ShardedInformer) GetController() informer.Controller { return shardedController{s} }

// LastSyncResourceVersion is "": each range has its own.
func (s *ShardedInformer) LastSyncResourceVersion() string { return "" }

// IsStopped reports whether RunWithContext has returned.
func (s *ShardedInformer) IsStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

var errStarted = errors.New("sharding: informer has already started")

// SetTransform sets the transform of every range informer. It fails once
// the informer has started.
func (s *ShardedInformer) SetTransform(f informer.TransformFunc) error {
	return s.beforeStart(func() { s.transform = f })
}

// beforeStart runs set under the lock unless the informer has started.
func (s *ShardedInformer) beforeStart(set func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || len(s.ranges) > 0 {
		return errStarted
	}
	set()
	return nil
}

// SetWatchErrorHandler sets the list and watch error handler of every
// range informer. It fails once the informer has started.
func (s *ShardedInformer) SetWatchErrorHandler(h informer.WatchErrorHandler) error {
	return s.SetWatchErrorHandlerWithContext(func(_ context.Context, r *informer.Reflector, err error) { h(r, err) })
}

// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with a context.
func (s *ShardedInformer) SetWatchErrorHandlerWithContext(h informer.WatchErrorHandlerWithContext) error {
	return s.beforeStart(func() { s.watchErrorHandle = h })
}

// AddIndexers adds indexers to every owned range's indexer and to the
// ranges started later.
func (s *ShardedInformer) AddIndexers(indexers informer.Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("sharding: informer has stopped")
	}
	for name := range indexers {
		if _, ok := s.indexers[name]; ok {
			return fmt.Errorf("indexer conflict: %v", name)
		}
	}
	for _, ri := range s.ranges {
		if err := ri.inf.AddIndexers(indexers); err != nil {
			return err
		}
	}
	if s.indexers == nil {
		s.indexers = informer.Indexers{}
	}
	maps.Copy(s.indexers, indexers)
	return nil
}

// shardedController is GetController's view.
type shardedController struct{ s *ShardedInformer }

func (c shardedController) RunWithContext(context.Context)         {}
func (c shardedController) Run(<-chan struct{})                    {}
func (c shardedController) HasSynced() bool                        { return c.s.HasSynced() }
func (c shardedController) HasSyncedChecker() informer.DoneChecker { return c.s.synced }
func (c shardedController) LastSyncResourceVersion() string        { return "" }
