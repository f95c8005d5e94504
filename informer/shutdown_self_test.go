package informer

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/internal/fakelw"
)

// selfRemover is a handler that, on the add of the pod named at, removes
// its own registration from inside that call, with ShutDownEventHandler
// (or RemoveEventHandler when remove is set), and records the calls it gets.
type selfRemover struct {
	siRecorder
	inf    SharedIndexInformer
	at     string
	remove bool

	mu       sync.Mutex
	reg      ResourceEventHandlerRegistration
	err      error
	returned chan struct{} // closed when the removal call returned
}

func (h *selfRemover) OnAdd(obj any, initial bool) {
	h.siRecorder.OnAdd(obj, initial)
	if obj.(*corev1.Pod).Name != h.at {
		return
	}
	h.mu.Lock()
	reg := h.reg
	h.mu.Unlock()
	var err error
	if h.remove {
		err = h.inf.RemoveEventHandler(reg)
	} else {
		err = ShutDownEventHandler(h.inf, reg)
	}
	h.mu.Lock()
	h.err = err
	h.mu.Unlock()
	close(h.returned)
}

// A handler that shuts its own registration down from inside one of its
// calls does not deadlock: the call returns, the handler is called no more,
// and the informer and its other handlers go on, then stop cleanly. This
// is what client-go does when a handler removes itself with
// RemoveEventHandler; client-go's ShutDownEventHandler deadlocks there.
func TestShutDownEventHandlerFromOwnHandler(t *testing.T) {
	variants := []struct {
		name   string
		engine ListenerEngine
		opts   HandlerOptions
		remove bool
	}{
		{name: "direct"},
		{name: "classic", engine: EngineClassic},
		{name: "coalesce", opts: HandlerOptions{Overflow: OverflowCoalesce, MaxPending: 10}},
		{name: "workers", opts: HandlerOptions{Workers: 4}},
		{name: "RemoveEventHandler", remove: true},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := fakelw.New(&corev1.Pod{})
				src.Add(siPod("a"))
				inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, SharedIndexInformerOptions{ListenerEngine: v.engine})
				h := &selfRemover{inf: inf, at: "b", remove: v.remove, returned: make(chan struct{})}
				reg, err := inf.AddEventHandlerWithOptions(h, v.opts)
				require.NoError(t, err)
				h.mu.Lock()
				h.reg = reg
				h.mu.Unlock()
				other := &siRecorder{}
				_, err = inf.AddEventHandler(other)
				require.NoError(t, err)
				stop := siRun(t, inf)
				synctest.Wait()

				src.Add(siPod("b"))
				select {
				case <-h.returned:
				case <-time.After(time.Minute):
					t.Fatal("ShutDownEventHandler called from its own handler did not return")
				}
				h.mu.Lock()
				require.NoError(t, h.err)
				h.mu.Unlock()
				synctest.Wait()
				select {
				case <-reg.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan():
				default:
					t.Fatal("ShutdownChan seen from outside the handler is not closed after the handler returned")
				}
				for i := range 3 {
					src.Add(siPod(fmt.Sprint("c", i)))
				}
				synctest.Wait()
				assert.Equal(t, []string{"add ns/a@1 initial=true", "add ns/b@2 initial=false"}, h.take(),
					"the handler is called no more after the call that removed it")
				assert.Len(t, other.take(), 5, "the other handler gets every change")
				hs, _ := HandlersOf(inf)
				assert.Len(t, hs, 1)
				stop()
			})
		})
	}
}
