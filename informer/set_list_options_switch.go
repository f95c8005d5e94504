package informer

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kfanout/fanout/internal/features"
)

// errRelistRequested is the cause of a watch ended by SetListOptions.
var errRelistRequested = errors.New("informer: the list options changed")

// listSwitch holds a shared informer's ListScope and carries a change of
// it through the informer: the reflector pins the scope of each attempt
// (every list page and watch of one ListAndWatch uses the same options),
// a change ends the watch in progress so that the next attempt lists at
// once with the new scope, and the delivery of that relist is told apart
// so that unchanged objects are not delivered.
//
// The reflector's goroutine calls pin, watchContext, relistNow and
// replacing; the controller's goroutine calls deliveryHandler;
// SetListOptions calls set; SyncStatus calls switching.
type listSwitch struct {
	mu sync.Mutex
	// latest is the newest scope; active the one the reflector's attempt
	// in progress uses (nil before the first attempt).
	latest, active *listScope
	// replaced is the generation of the scope of the last Replace the
	// reflector made; 0 before the first.
	replaced uint64
	// cancel ends the watch in progress; nil when none runs.
	cancel context.CancelCauseFunc
	// skipDelay: the reflector's next attempt starts without backoff.
	skipDelay bool
	// since is when the switch in progress was asked for.
	since time.Time

	// The fields below apply to a queue that turns each Replace into one
	// ReplacedAll delta (atomic): there the relist of a switch is the
	// switchSeqs[0]-th ReplacedAll, and is delivered through a filter.
	atomic bool
	// replaceSeq counts the Replaces, processedSeq the ReplacedAll deltas
	// delivered.
	replaceSeq, processedSeq uint64
	// switchSeqs are the Replaces that switched scope and are not yet
	// delivered, oldest first; pending is their number, read without mu.
	switchSeqs []uint64
	pending    atomic.Int64

	// heldBack applies to the other queues, which turn a Replace into one
	// delta per object and so cannot tell one relist from the next: it is
	// set from the Replace of a switch to the next other Replace, and
	// while it is set every update that only restates an object (another
	// object at the same resourceVersion: a relist's) is held back.
	heldBack atomic.Bool
}

// newListSwitch returns the switch of an informer whose initial scope is
// initial. It is not checked: the server refuses what it cannot serve, and
// SyncStatus shows the lists failing.
func newListSwitch(initial ListScope) *listSwitch {
	sc := uncheckedListScope(initial)
	sc.gen = 1
	return &listSwitch{latest: sc}
}

// bindQueue records whether q turns each Replace into one ReplacedAll, as
// newQueue builds it.
func (sw *listSwitch) bindQueue(q Queue) {
	_, real := q.(*RealFIFO)
	sw.atomic = real && features.Enabled(features.AtomicFIFO)
}

// set makes sc the scope; a running informer relists with it.
func (sw *listSwitch) set(sc *listScope, started bool, now time.Time) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	was := sw.switchingLocked()
	sc.gen = sw.latest.gen + 1
	sw.latest = sc
	if !started {
		return // the first list will use sc
	}
	if !was {
		sw.since = now
	}
	if sw.replaced == 0 {
		return // the watch that follows the first list ends at once
	}
	if sw.cancel != nil {
		sw.cancel(errRelistRequested)
		sw.skipDelay = true
	}
}

// current is the scope of a request: the pinned one during an attempt,
// else the newest.
func (sw *listSwitch) current() *listScope {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.active != nil {
		return sw.active
	}
	return sw.latest
}

// pin fixes the scope of the reflector's attempt that starts now.
func (sw *listSwitch) pin() {
	if sw == nil {
		return
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.active = sw.latest
}

// watchContext returns the context of the watch that follows a list, and
// the function that ends it: a change of scope cancels the context (at
// once if the scope changed during the list), and end then turns the
// watch's result into nil, so that the reflector lists again.
func (sw *listSwitch) watchContext(ctx context.Context) (context.Context, func(error) error) {
	if sw == nil {
		return ctx, func(err error) error { return err }
	}
	wctx, cancel := context.WithCancelCause(ctx)
	sw.mu.Lock()
	sw.cancel = cancel
	if sw.active != sw.latest {
		cancel(errRelistRequested)
		sw.skipDelay = true
	}
	sw.mu.Unlock()
	return wctx, func(err error) error {
		sw.mu.Lock()
		sw.cancel = nil
		sw.mu.Unlock()
		switched := errors.Is(context.Cause(wctx), errRelistRequested)
		cancel(nil)
		if switched && ctx.Err() == nil {
			return nil
		}
		return err
	}
}

// relistNow reports, once, that the next attempt must start without
// backoff.
func (sw *listSwitch) relistNow() bool {
	if sw == nil {
		return false
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	now := sw.skipDelay
	sw.skipDelay = false
	return now
}

// replacing records that the reflector is about to replace the store with
// a list of the pinned scope, and returns the undo for a Replace that
// fails.
func (sw *listSwitch) replacing() (undo func()) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	prev := sw.replaced
	isSwitch := prev != 0 && sw.active != nil && sw.active.gen != prev
	if sw.active != nil {
		sw.replaced = sw.active.gen
	}
	sw.replaceSeq++
	seq := sw.replaceSeq
	if isSwitch && sw.atomic {
		sw.switchSeqs = append(sw.switchSeqs, seq)
		sw.pending.Add(1)
	}
	heldBack := sw.heldBack.Load()
	if !sw.atomic {
		sw.heldBack.Store(isSwitch)
	}
	if !sw.switchingLocked() {
		sw.since = time.Time{}
	}
	return func() {
		sw.mu.Lock()
		defer sw.mu.Unlock()
		sw.replaced = prev
		sw.heldBack.Store(heldBack)
		sw.replaceSeq--
		if n := len(sw.switchSeqs); n > 0 && sw.switchSeqs[n-1] == seq {
			sw.switchSeqs = sw.switchSeqs[:n-1]
			sw.pending.Add(-1)
		}
	}
}

// switching reports whether a switch is in progress (and since when): the
// newest scope is not the one the store was last replaced with, or (with
// an atomic queue) that Replace has not been delivered yet.
func (sw *listSwitch) switching() (bool, time.Time) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.switchingLocked(), sw.since
}

func (sw *listSwitch) switchingLocked() bool {
	return sw.replaced != 0 && (sw.latest.gen != sw.replaced || len(sw.switchSeqs) > 0)
}

// deliveryHandler returns the handler through which popped item p is
// delivered: h, or, for the ReplacedAll of a switch, h without the updates
// of objects whose resourceVersion did not change. It is called once per
// item, by the controller's goroutine.
func (sw *listSwitch) deliveryHandler(h ResourceEventHandler, p popped) ResourceEventHandler {
	if !sw.atomic {
		if !sw.heldBack.Load() {
			return h
		}
		return changedOrResync{h}
	}
	if p.Batch {
		return h
	}
	n := 0
	for i := range p.Deltas {
		if p.Deltas[i].Type == ReplacedAll {
			n++
		}
	}
	if n == 0 {
		return h
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	filter := false
	for range n {
		sw.processedSeq++
		for len(sw.switchSeqs) > 0 && sw.switchSeqs[0] <= sw.processedSeq {
			filter = filter || sw.switchSeqs[0] == sw.processedSeq
			sw.switchSeqs = sw.switchSeqs[1:]
			sw.pending.Add(-1)
		}
	}
	if !sw.switchingLocked() {
		sw.since = time.Time{}
	}
	if filter {
		return changedOnly{h}
	}
	return h
}

// changedOnly passes on every call but the updates whose resourceVersion
// did not change.
type changedOnly struct{ ResourceEventHandler }

func (c changedOnly) OnUpdate(oldObj, newObj any) {
	if sameResourceVersion(oldObj, newObj) {
		return
	}
	c.ResourceEventHandler.OnUpdate(oldObj, newObj)
}

// changedOrResync holds back the updates that restate an object: the
// old and new objects differ but have the same resourceVersion. An update
// whose old and new objects are one object is a resync, and passes.
type changedOrResync struct{ ResourceEventHandler }

func (c changedOrResync) OnUpdate(oldObj, newObj any) {
	if !isSameObject(oldObj, newObj) && sameResourceVersion(oldObj, newObj) {
		return
	}
	c.ResourceEventHandler.OnUpdate(oldObj, newObj)
}

// isSameObject reports whether a and b are the same pointer.
func isSameObject(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Kind() == reflect.Pointer && vb.Kind() == reflect.Pointer && va.Pointer() == vb.Pointer()
}

// sameResourceVersion reports whether both objects have the same,
// non-empty resourceVersion.
func sameResourceVersion(a, b any) bool {
	ma, err := meta.Accessor(a)
	if err != nil {
		return false
	}
	mb, err := meta.Accessor(b)
	if err != nil {
		return false
	}
	rv := ma.GetResourceVersion()
	return rv != "" && rv == mb.GetResourceVersion()
}

// The reflector's side. A reflector built by a shared informer lists and
// watches through the informer's scopedSource, which leads to its switch;
// any other reflector has none, and these calls do nothing.

// listSwitch returns the switch of the informer the reflector serves, or
// nil.
func (r *Reflector) listSwitch() *listSwitch {
	if s, ok := r.listerWatcher.(*scopedSource); ok {
		return s.sw
	}
	return nil
}

// replaceStore replaces the store with a list, telling the switch.
func (r *Reflector) replaceStore(items []any, resourceVersion string) error {
	sw := r.listSwitch()
	if sw == nil {
		return r.store.Replace(items, resourceVersion)
	}
	undo := sw.replacing()
	err := r.store.Replace(items, resourceVersion)
	if err != nil {
		undo()
	}
	return err
}

// switchAttempts sets the failed-list figures of a synced informer's
// status during a switch, from its reflector.
func (s *sharedIndexInformer) switchAttempts(st *SyncStatus, ctl *controller) {
	if ctl == nil {
		return
	}
	ctl.mu.RLock()
	r := ctl.reflector
	ctl.mu.RUnlock()
	if r == nil {
		return
	}
	f := r.fill.snapshot()
	st.Attempts, st.LastError, st.LastErrorTime, st.NextRetry = f.attempts, f.lastErr, f.lastErrAt, f.nextRetry
}
