package demo

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/informer"
)

// handlerFuncs are a handler's callbacks. Both libraries take them: fanout
// as they are, client-go converted to its own ResourceEventHandlerFuncs,
// which has the same fields.
type handlerFuncs = informer.ResourceEventHandlerFuncs

// fastHandler does nothing but count. Its update count tells the source
// how far the informer itself has got.
type fastHandler struct {
	updates atomic.Uint64
}

func (h *fastHandler) funcs() handlerFuncs {
	return handlerFuncs{
		UpdateFunc: func(_, _ any) { h.updates.Add(1) },
	}
}

// slowHandler spends delay on every notification, as a handler doing a
// remote call would. It stops waiting once ctx is done, so that the
// informer can stop promptly.
type slowHandler struct {
	ctx   context.Context
	delay time.Duration
}

func (h *slowHandler) wait() {
	t := time.NewTimer(h.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-h.ctx.Done():
	}
}

func (h *slowHandler) funcs() handlerFuncs {
	return handlerFuncs{
		AddFunc:    func(any) { h.wait() },
		UpdateFunc: func(_, _ any) { h.wait() },
		DeleteFunc: func(any) { h.wait() },
	}
}

// stalledHandler blocks in its first call until released, then records
// the newest resourceVersion it has seen of each object, so the demo can
// tell whether it caught up with the source.
type stalledHandler struct {
	release chan struct{} // closed to let the handler go on

	mu     sync.Mutex
	latest map[string]int // object name -> resourceVersion last handled
}

func newStalledHandler() *stalledHandler {
	return &stalledHandler{release: make(chan struct{}), latest: map[string]int{}}
}

func (h *stalledHandler) handle(obj any) {
	<-h.release
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	rv, err := strconv.Atoi(cm.ResourceVersion)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.latest[cm.Name] = rv
}

func (h *stalledHandler) funcs() handlerFuncs {
	return handlerFuncs{
		AddFunc:    h.handle,
		UpdateFunc: func(_, obj any) { h.handle(obj) },
	}
}

// current counts the objects whose newest version, per want, the handler
// has handled.
func (h *stalledHandler) current(want map[string]int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for name, rv := range want {
		if h.latest[name] == rv {
			n++
		}
	}
	return n
}
