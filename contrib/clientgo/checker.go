package clientgo

import (
	"context"
	"sync"

	"github.com/kfanout/fanout/contrib/clientgo/internal/donemirror"
	"github.com/kfanout/fanout/informer"
)

// checkerHost is embedded by the adapters of client-go's informer,
// controller and registration. Its method set is HasSynced (which every
// adapter shadows with its own) and, from client-go v0.36 on,
// HasSyncedChecker() cache.DoneChecker: embedding it gives the adapters
// exactly the method set of the linked release's interfaces, without
// naming cache.DoneChecker, which v0.35 does not declare.
type checkerHost = donemirror.Host

// hasDoneChecker reports whether the linked client-go's interfaces have
// HasSyncedChecker (client-go v0.36 and later).
var hasDoneChecker = donemirror.Supported

// newMirror returns the checkerHost of an adapter whose fanout checker is
// src: named as src and done once src is done and the informer's Run has
// seen it (mirrors follows it while the adapter runs). It is nil on
// client-go v0.35, where nothing promotes from it but HasSynced.
func newMirror(src informer.DoneChecker, mirrors *mirrorSet) checkerHost {
	if !hasDoneChecker || src == nil {
		return nil
	}
	host, finish := donemirror.New(src.Name())
	mirrors.add(src, finish)
	return host
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

// mirror is a client-go checker that follows a fanout checker.
type mirror struct {
	src    informer.DoneChecker
	finish func()
}

// add registers a mirror; it is finished at once if src is done already.
func (m *mirrorSet) add(src informer.DoneChecker, finish func()) {
	mi := mirror{src: src, finish: finish}
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
