package sharding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/informer"

	"github.com/kfanout/fanout/contrib/sharding/internal/ring"
)

// selfStopper is a handler that shuts its own registration down from
// inside a call: from its stopAt-th add (or its first delete when deletes
// is set). It counts the calls that start after that shutdown returned.
type selfStopper struct {
	s       *ShardedInformer
	reg     informer.ResourceEventHandlerRegistration
	ready   chan struct{} // closed once reg is set
	stopAt  int32
	deletes bool

	calls    atomic.Int32
	inCall   atomic.Int32
	shutdown atomic.Bool  // ShutDownEventHandler has returned
	late     atomic.Int32 // calls started after that
	errs     chan error   // ShutDownEventHandler's results
	once     sync.Once
}

func (h *selfStopper) call(isDelete bool) {
	h.inCall.Add(1)
	defer h.inCall.Add(-1)
	if h.shutdown.Load() {
		h.late.Add(1)
		return
	}
	n := h.calls.Add(1)
	if (h.deletes && isDelete) || (!h.deletes && n == h.stopAt) {
		h.once.Do(func() {
			<-h.ready
			err := informer.ShutDownEventHandler(h.s, h.reg)
			// Returned: this call may still run; no other call does.
			if others := h.inCall.Load() - 1; others != 0 && err == nil {
				err = fmt.Errorf("%d other calls in progress after ShutDownEventHandler returned", others)
			}
			h.shutdown.Store(true)
			h.errs <- err
		})
	}
}

func (h *selfStopper) OnAdd(interface{}, bool)           { h.call(false) }
func (h *selfStopper) OnUpdate(interface{}, interface{}) { h.call(false) }
func (h *selfStopper) OnDelete(interface{})              { h.call(true) }

// TestShutDownEventHandlerFromOwnHandler: a handler that calls
// informer.ShutDownEventHandler on its own registration from inside one of
// its calls gets the call back (no deadlock, as with client-go's contract
// for RemoveEventHandler from a handler), and no call of the handler
// starts after it returned, whether its calls are serialised across
// ranges, run on keyed workers, or are the deletes of a lost range.
func TestShutDownEventHandlerFromOwnHandler(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		deletes bool
	}{
		{"serial", 0, false},
		{"workers", 4, false},
		{"lost-range-delete", 0, true},
		{"lost-range-delete-workers", 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				rng := rand.New(rand.NewPCG(31, 32))
				src := newObjectSource(t, true, 4)
				for i := range 200 {
					src.create(t, rng, fmt.Sprintf("cm-%d", i))
				}
				s := NewShardedInformer(src.lw(), &corev1.ConfigMap{}, Options{})
				rs, _ := ring.Ranges(4)
				for _, r := range rs {
					s.StartRange(ctx, r)
				}
				s.RoundDone()
				h := &selfStopper{s: s, stopAt: 37, deletes: tc.deletes, errs: make(chan error, 1), ready: make(chan struct{})}
				reg, err := s.AddEventHandlerWithOptions(h, informer.HandlerOptions{Workers: tc.workers})
				require.NoError(t, err)
				h.reg = reg
				close(h.ready)
				synctest.Wait()
				if tc.deletes {
					s.StopRange(ctx, rs[2], false) // forced: the deletes come from another goroutine
				}
				synctest.Wait()
				select {
				case err := <-h.errs:
					require.NoError(t, err)
				default:
					t.Fatal("the handler's ShutDownEventHandler has not returned")
				}
				<-reg.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan()
				assert.Zero(t, h.late.Load(), "calls after ShutDownEventHandler returned")
				assert.Zero(t, h.inCall.Load())
				cancel()
				for _, r := range rs {
					s.StopRange(context.Background(), r, false)
				}
				s.Wait()
			})
		})
	}
}
