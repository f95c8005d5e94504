package sharding

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"

	"github.com/kfanout/fanout/informer"
)

// DefaultDrainTimeout is Options.DrainTimeout when it is 0.
const DefaultDrainTimeout = 10 * time.Second

// objectState is what a range's source last said of one key: its
// resourceVersion, or gone.
type objectState struct {
	rv   string
	gone bool
}

// stateOf returns obj's key and resourceVersion; ok is false when the key
// cannot be computed.
func stateOf(obj interface{}) (key, rv string, ok bool) {
	key, err := informer.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return "", "", false
	}
	if d, isTomb := informer.AsDeletedFinalStateUnknown(obj); isTomb {
		obj = d.Obj
	}
	if a, err := meta.Accessor(obj); err == nil {
		rv = a.GetResourceVersion()
	}
	return key, rv, true
}

// drainTracker wraps one registration's handler on one range informer. It
// remembers, per key, the resourceVersion of the newest object a handler
// call has returned with (an add or update) or that the key's last call was
// a delete. During a drain it counts down the keys whose final state (what
// the frozen source last sent) the handler has not yet finished with:
// delivery is in order per key, also with keyed workers, so once the final
// state's call returned, every earlier notification of that key has been
// handled or merged away. Handler calls happen outside its mutex.
type drainTracker struct {
	h informer.ResourceEventHandler
	// stop is closed when the range stops delivering: a call that still
	// waits for its turn at a serialised handler (another range's call
	// runs) is dropped then, as the range's pending notifications are.
	stop <-chan struct{}

	mu       sync.Mutex
	done     map[string]toldState   // key -> the object handled last, unless deleted
	waiting  map[string]objectState // during a drain: keys not caught up
	idle     chan struct{}          // closed when waiting is empty
	draining bool
}

// toldState is the object a handler call last returned with for a key,
// and its resourceVersion.
type toldState struct {
	rv  string
	obj interface{}
}

func newDrainTracker(h informer.ResourceEventHandler, stop <-chan struct{}) *drainTracker {
	return &drainTracker{h: h, stop: stop, done: map[string]toldState{}, idle: make(chan struct{})}
}

// enter waits for the handler's turn if it is serialised and returns the
// handler to call and the function that ends the turn; ok is false if the
// range stopped first.
func (t *drainTracker) enter() (h informer.ResourceEventHandler, leave func(), ok bool) {
	s, serial := t.h.(*serialHandler)
	if !serial {
		return t.h, func() {}, true
	}
	if !s.acquireUnless(t.stop) {
		return nil, nil, false
	}
	return s.h, s.release, true
}

func (t *drainTracker) OnAdd(obj interface{}, isInInitialList bool) {
	h, leave, ok := t.enter()
	if !ok {
		return
	}
	defer leave()
	defer t.handled(obj, false)
	h.OnAdd(obj, isInInitialList)
}

func (t *drainTracker) OnUpdate(oldObj, newObj interface{}) {
	h, leave, ok := t.enter()
	if !ok {
		return
	}
	defer leave()
	defer t.handled(newObj, false)
	h.OnUpdate(oldObj, newObj)
}

func (t *drainTracker) OnDelete(obj interface{}) {
	h, leave, ok := t.enter()
	if !ok {
		return
	}
	defer leave()
	defer t.handled(obj, true)
	h.OnDelete(obj)
}

// handled records a returned (or panicked) handler call.
func (t *drainTracker) handled(obj interface{}, deleted bool) {
	key, rv, ok := stateOf(obj)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if deleted {
		delete(t.done, key)
	} else {
		t.done[key] = toldState{rv: rv, obj: obj}
	}
	if !t.draining {
		return
	}
	if want, ok := t.waiting[key]; ok && want.gone == deleted && (deleted || want.rv == rv) {
		delete(t.waiting, key)
		t.closeIfIdleLocked()
	}
}

// startDrain compares what the handler has finished with final, the state
// the frozen source last sent, and returns a channel closed once the handler
// has caught up with every key.
func (t *drainTracker) startDrain(final map[string]string) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.draining = true
	t.waiting = map[string]objectState{}
	for key, rv := range final {
		if got, ok := t.done[key]; !ok || got.rv != rv {
			t.waiting[key] = objectState{rv: rv}
		}
	}
	for key := range t.done {
		if _, ok := final[key]; !ok {
			t.waiting[key] = objectState{gone: true}
		}
	}
	t.closeIfIdleLocked()
	return t.idle
}

// toldBeyond returns the objects the handler was last told of (an add or
// update not followed by a delete) whose keys are not in have. A forced
// stop drops what was pending for the range, deletes included, so these
// are the objects the range's store no longer holds that the handler
// still believes in.
func (t *drainTracker) toldBeyond(have map[string]bool) map[string]interface{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out map[string]interface{}
	for key, told := range t.done {
		if have[key] {
			continue
		}
		if out == nil {
			out = map[string]interface{}{}
		}
		out[key] = told.obj
	}
	return out
}

// outstanding returns the number of keys the handler has not caught up
// with.
func (t *drainTracker) outstanding() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.waiting)
}

// abandon ends the drain wait for a registration removed meanwhile.
func (t *drainTracker) abandon() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.draining = true
	clear(t.waiting)
	t.closeIfIdleLocked()
}

func (t *drainTracker) closeIfIdleLocked() {
	if len(t.waiting) == 0 {
		select {
		case <-t.idle:
		default:
			close(t.idle)
		}
	}
}

// drainRange freezes ri's source and waits until every handler registered
// on it has finished with the final state of every key (see drainTracker),
// for at most the drain timeout, or until ctx is done or the drain is
// aborted by a forced stop. It reports whether the handlers caught up.
func (s *ShardedInformer) drainRange(ctx context.Context, ri *rangeInformer) bool {
	final := ri.lw.freeze()
	s.mu.Lock()
	var chans []<-chan struct{}
	trackers := make([]*drainTracker, 0, len(ri.trackers))
	for _, t := range ri.trackers {
		chans = append(chans, t.startDrain(final))
		trackers = append(trackers, t)
	}
	s.mu.Unlock()
	timeout := s.drainTimeout()
	if timeout < 0 {
		return false
	}
	timer := s.clock.NewTimer(timeout)
	defer timer.Stop()
	for _, c := range chans {
		select {
		case <-c:
			continue
		case <-timer.C():
		case <-ri.abort:
		case <-ctx.Done():
		}
		left := 0
		for _, t := range trackers {
			left += t.outstanding()
		}
		klog.FromContext(ctx).Info("Handing range over before its handlers caught up: their pending notifications for it are dropped", "range", ri.r, "keysBehind", left, "drainTimeout", timeout)
		return false
	}
	return true
}

// drainTimeout is Options.DrainTimeout with its default.
func (s *ShardedInformer) drainTimeout() time.Duration {
	if s.opts.DrainTimeout == 0 {
		return DefaultDrainTimeout
	}
	return s.opts.DrainTimeout
}
