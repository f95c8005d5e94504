package demo

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/kfanout/fanout/debugpage"
)

// DebugPath is where ServeDebugPage mounts the page.
const DebugPath = "/debug/informers"

// NewDebugPage returns the page the demo registers each run's informer
// with: sampled every second, a handler marked behind once its oldest
// notification waits 5 s, reloading every 2 s.
func NewDebugPage() *debugpage.Page {
	return debugpage.New(debugpage.Options{
		Title:          "fanout overload demo",
		SampleInterval: time.Second,
		Samples:        120,
		BehindAfter:    5 * time.Second,
		Refresh:        2 * time.Second,
	})
}

// ServeDebugPage serves page at DebugPath on addr (":0" picks a port) and
// samples it every second, until shutdown is called. url is the page's
// address. shutdown waits for the server and the sampler to stop.
func ServeDebugPage(addr string, page *debugpage.Page) (url string, shutdown func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("debug address: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle(DebugPath, page)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ctx, stopSampling := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(ln) })
	wg.Go(func() { page.Run(ctx) })
	return "http://" + ln.Addr().String() + DebugPath, func() {
		stopSampling()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		wg.Wait()
	}, nil
}
