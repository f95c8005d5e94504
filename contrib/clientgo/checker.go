package clientgo

import (
	"context"
	"reflect"
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/kfanout/fanout/informer"
)

// checkerHost is embedded by the adapters of client-go's informer,
// controller and registration. Its method set is HasSynced (which every
// adapter shadows with its own) and, from client-go v0.36 on,
// HasSyncedChecker() cache.DoneChecker: embedding it gives the adapters
// exactly the method set of the linked release's interfaces, without
// naming cache.DoneChecker, which v0.35 does not declare.
type checkerHost = cache.ResourceEventHandlerRegistration

// hasDoneChecker reports whether the linked client-go's interfaces have
// HasSyncedChecker (client-go v0.36 and later).
var hasDoneChecker = func() bool {
	_, ok := reflect.TypeFor[checkerHost]().MethodByName("HasSyncedChecker")
	return ok
}()

// newMirror returns the checkerHost of an adapter whose fanout checker is
// src: a client-go DeltaFIFO used only as a DoneChecker, named as src and
// done once src is done and the informer's Run has seen it (mirrors
// follows it while the adapter runs). It is nil on client-go v0.35, where
// nothing promotes from it but HasSynced.
//
// A DeltaFIFO is the one client-go DoneChecker whose name can be set and
// whose completion can be triggered from outside: Replace with an empty
// list finishes its initial population.
func newMirror(src informer.DoneChecker, mirrors *mirrorSet) checkerHost {
	if !hasDoneChecker || src == nil {
		return nil
	}
	var opts cache.DeltaFIFOOptions
	// Name is an option from client-go v0.36 on, set by name so that
	// this file compiles against v0.35.
	if f := reflect.ValueOf(&opts).Elem().FieldByName("Name"); f.IsValid() && f.Kind() == reflect.String {
		f.SetString(src.Name())
	}
	fifo := cache.NewDeltaFIFOWithOptions(opts)
	mirrors.add(src, fifo)
	return fifo
}

// mirrorSet holds the mirrors of one adapter and finishes each once its
// fanout checker is done. Before the informer runs nothing waits; while it
// runs, one goroutine per unfinished mirror waits until the checker is
// done or the run's context ends.
type mirrorSet struct {
	mu sync.Mutex // guards the fields below
	// ctx is the context of the adapter's first Run; nil before.
	ctx     context.Context
	pending []mirror
}

// mirror is a DeltaFIFO that follows a fanout checker.
type mirror struct {
	src  informer.DoneChecker
	fifo *cache.DeltaFIFO
}

// add registers a mirror; it is finished at once if src is done already.
func (m *mirrorSet) add(src informer.DoneChecker, fifo *cache.DeltaFIFO) {
	mi := mirror{src: src, fifo: fifo}
	if informer.IsDone(src) {
		mi.finish()
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx != nil {
		go mi.follow(m.ctx)
		return
	}
	m.pending = append(m.pending, mi)
}

// run starts following every pending mirror until ctx is done; only the
// first call has an effect, as only an informer's first Run runs it.
func (m *mirrorSet) run(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx != nil {
		return
	}
	m.ctx = ctx
	for _, mi := range m.pending {
		go mi.follow(ctx)
	}
	m.pending = nil
}

// follow finishes the mirror once its checker is done, unless ctx ends
// first.
func (mi mirror) follow(ctx context.Context) {
	select {
	case <-mi.src.Done():
		mi.finish()
	case <-ctx.Done():
	}
}

// finish completes the DeltaFIFO's initial population with an empty list,
// which closes its Done channel.
func (mi mirror) finish() { _ = mi.fifo.Replace(nil, "") }
