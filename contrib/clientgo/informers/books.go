package informers

import (
	"context"
	"reflect"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/contrib/clientgo"
	"github.com/kfanout/fanout/contrib/clientgo/internal/donemirror"
	"github.com/kfanout/fanout/informer"
)

// entry is the factory's current informer of one type.
type entry struct {
	inf cache.SharedIndexInformer // nil if a custom constructor returned nil
	// ctx is the context Start runs the informer on; nil before.
	ctx context.Context
	// removed is closed when the entry leaves the factory.
	removed chan struct{}
}

// Start runs every informer requested so far and not yet started until
// stopCh is closed.
func (f *factory) Start(stopCh <-chan struct{}) { f.StartWithContext(wait.ContextForChannel(stopCh)) }

// StartWithContext runs every informer requested so far and not yet
// started until ctx is done. It does not wait; after Shutdown it does
// nothing.
func (f *factory) StartWithContext(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	f.pruneLocked()
	for t, e := range f.informers {
		if e.ctx != nil || e.inf == nil {
			continue
		}
		e.ctx = ctx
		inf := e.inf
		f.wg.Go(func() { inf.RunWithContext(ctx) })
		if s := f.slots[t]; s != nil && s.gen == e {
			f.wg.Go(func() { s.follow(ctx, e) })
		}
	}
	// client-go's factory runs the slots (which do nothing) and its own
	// informers.
	if s, ok := f.inner.(interface{ StartWithContext(context.Context) }); ok {
		s.StartWithContext(ctx)
	} else {
		f.inner.Start(ctx.Done())
	}
}

// Shutdown stops Start from starting informers and waits until every
// informer it started has returned, which happens once the contexts or
// stop channels they were started with are done (or they were removed).
// It may be called more than once, also concurrently; every call waits.
func (f *factory) Shutdown() {
	f.mu.Lock()
	f.shuttingDown = true
	f.mu.Unlock()
	f.wg.Wait()
	f.inner.Shutdown()
}

// WaitForCacheSync waits until every started informer has synced or
// stopCh is closed, and reports per type whether it synced. It includes
// client-go's own informers of the groups added after v0.35.
func (f *factory) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	f.mu.Lock()
	f.pruneLocked()
	started := map[reflect.Type]cache.SharedIndexInformer{}
	for t, e := range f.informers {
		if e.ctx != nil {
			started[t] = e.inf
		}
	}
	f.mu.Unlock()
	res := make(map[reflect.Type]bool, len(started))
	for t, inf := range started {
		res[t] = informer.WaitForCacheSync(stopCh, inf.HasSynced)
	}
	for t, synced := range f.inner.WaitForCacheSync(stopCh) {
		f.mu.Lock()
		_, ours := f.slots[t]
		f.mu.Unlock()
		if !ours {
			res[t] = synced
		}
	}
	return res
}

// pruneLocked drops the informers stopped by their own Shutdown: stopped
// although the factory never started them or their start context has not
// ended. An informer stopped because its start context ended stays, as
// in client-go.
func (f *factory) pruneLocked() {
	for t, e := range f.informers {
		if e.inf == nil || !e.inf.IsStopped() {
			continue
		}
		if e.ctx == nil || e.ctx.Err() == nil {
			f.dropLocked(t, e)
		}
	}
}

// dropLocked removes e, the informer of t, from the factory.
func (f *factory) dropLocked(t reflect.Type, e *entry) {
	delete(f.informers, t)
	close(e.removed)
	if s := f.slots[t]; s != nil {
		s.finish() // nothing more to wait for from this informer
	}
}

// slotLocked registers with client-go's factory the slot of obj's type t,
// the first time t is requested; e is then its first informer.
func (f *factory) slotLocked(obj k8sruntime.Object, t reflect.Type) {
	if _, ok := f.slots[t]; ok {
		return
	}
	e := f.informers[t]
	host, finish := donemirror.New("SharedIndexInformer " + t.String())
	s := &slot{Host: host, slotBase: slotBase{e.inf}, f: f, t: t, gen: e, finish: finish}
	f.slots[t] = s
	f.inner.InformerFor(obj, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer { return s })
}

// slot is what client-go's factory keeps for one type, standing for the
// factory's current informer of the type. client-go's factory runs it
// (Run does nothing: the factory runs its informers itself) and its
// WaitForCacheSyncWithContext asks it HasSyncedChecker (client-go v0.36+),
// then HasSynced:
//   - HasSynced is the current informer's, and true when the type has none
//     or it was not started (nothing to wait for);
//   - HasSyncedChecker is done once the type's first informer has synced
//     or left the factory. A checker is done only once, so after
//     RemoveInformer a fresh informer of the type is not waited for by
//     WaitForCacheSyncWithContext: it may return with the type false in
//     Synced (and a nil Err); WaitForCacheSync waits for it.
type slot struct {
	donemirror.Host // depth 1: HasSyncedChecker wins over slotBase's
	slotBase        // depth 2: the rest of client-go's informer interface
	f               *factory
	t               reflect.Type
	gen             *entry // the type's first informer
	finish          func()
}

// slotBase holds the type's first informer, for the methods of client-go's
// interface that client-go's factory never calls.
type slotBase struct{ cache.SharedIndexInformer }

// Run does nothing: the factory runs its informers itself.
func (*slot) Run(<-chan struct{}) {}

// RunWithContext does nothing: the factory runs its informers itself.
func (*slot) RunWithContext(context.Context) {}

// SetTransform does nothing: the factory sets WithTransform's transform
// on each of its informers itself.
func (*slot) SetTransform(cache.TransformFunc) error { return nil }

// HasSynced reports whether the type's current informer has synced; true
// when there is none to wait for.
func (s *slot) HasSynced() bool {
	s.f.mu.Lock()
	e := s.f.informers[s.t]
	s.f.mu.Unlock()
	if e == nil || e.ctx == nil || e.inf == nil {
		return true
	}
	return e.inf.HasSynced()
}

// follow finishes the slot's checker once the type's first informer, e,
// has synced or left the factory; it returns then or once ctx ends.
func (s *slot) follow(ctx context.Context, e *entry) {
	fi, ok := clientgo.FanoutInformer(e.inf)
	if ok {
		select {
		case <-fi.HasSyncedChecker().Done():
			s.finish()
		case <-e.removed:
		case <-ctx.Done():
		}
		return
	}
	// client-go's own informer (from a custom constructor): poll it as
	// client-go v0.35's WaitForCacheSync does.
	tick := time.NewTicker(slotPollPeriod)
	defer tick.Stop()
	for !e.inf.HasSynced() {
		select {
		case <-tick.C:
		case <-e.removed:
			return
		case <-ctx.Done():
			return
		}
	}
	s.finish()
}

// slotPollPeriod is how often a slot looks at an informer that is not
// fanout's.
const slotPollPeriod = 100 * time.Millisecond
