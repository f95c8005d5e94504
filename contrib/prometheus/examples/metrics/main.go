// Command metrics serves a fanout informer's per-handler metrics on
// /metrics through contrib/prometheus, so you can watch a slow handler's
// backlog grow live:
//
//	go run ./examples/metrics -addr 127.0.0.1:8080
//	curl -s 127.0.0.1:8080/metrics | grep informer_handler_
//
// An embedded fake source lists a few ConfigMaps and then updates them
// every few milliseconds; handler "fast" keeps up, handler "slow" takes
// -slow-delay per notification and falls behind.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	fanoutprom "github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to serve /metrics on")
	objects := flag.Int("objects", 100, "number of ConfigMaps in the fake source")
	interval := flag.Duration("interval", 5*time.Millisecond, "time between updates of the fake source")
	slowDelay := flag.Duration("slow-delay", 50*time.Millisecond, "time the slow handler spends on each notification")
	duration := flag.Duration("duration", 0, "stop after this long; 0 runs until interrupted")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		os.Exit(1)
	}
	fmt.Printf("Serving http://%s/metrics\n", ln.Addr())
	if err := run(ctx, ln, *objects, *interval, *slowDelay); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		os.Exit(1)
	}
}

// run serves /metrics on ln and runs the informer until ctx is done.
func run(ctx context.Context, ln net.Listener, objects int, interval, slowDelay time.Duration) error {
	reg := prom.NewRegistry()
	provider, err := fanoutprom.NewListenerMetricsProvider(reg)
	if err != nil {
		return err
	}
	inf := informer.NewSharedIndexInformerWithOptions(newSource(objects, interval), &corev1.ConfigMap{},
		informer.SharedIndexInformerOptions{ObjectDescription: "configmaps", ListenerMetricsProvider: provider})
	noop := func(any) {}
	if _, err := inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{
		AddFunc: noop, UpdateFunc: func(any, any) {}, DeleteFunc: noop,
	}, informer.HandlerOptions{Name: "fast"}); err != nil {
		return err
	}
	sleep := func() {
		select {
		case <-time.After(slowDelay):
		case <-ctx.Done():
		}
	}
	if _, err := inf.AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{
		AddFunc: func(any) { sleep() }, UpdateFunc: func(any, any) { sleep() }, DeleteFunc: func(any) { sleep() },
	}, informer.HandlerOptions{Name: "slow", SlowHandlerThreshold: time.Second}); err != nil {
		return err
	}

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	inf.RunWithContext(ctx) // returns once ctx is done and the handlers stopped
	shutCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = srv.Shutdown(shutCtx)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return ctx.Err()
}

// newSource lists objects ConfigMaps and, on each watch, modifies one of
// them every interval until the watch is stopped.
func newSource(objects int, interval time.Duration) *informer.ListWatch {
	cm := func(i, rv int) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "demo", Name: "cm-" + strconv.Itoa(i), ResourceVersion: strconv.Itoa(rv),
		}}
	}
	return &informer.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(objects)}}
			for i := range objects {
				list.Items = append(list.Items, *cm(i, i+1))
			}
			return list, nil
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			rv, err := strconv.Atoi(opts.ResourceVersion)
			if err != nil {
				return nil, fmt.Errorf("resource version %q: %w", opts.ResourceVersion, err)
			}
			w := &updates{result: make(chan watch.Event), stop: make(chan struct{})}
			go func() {
				defer close(w.result)
				t := time.NewTicker(interval)
				defer t.Stop()
				for {
					select {
					case <-ctx.Done():
						return
					case <-w.stop:
						return
					case <-t.C:
					}
					rv++
					select {
					case w.result <- watch.Event{Type: watch.Modified, Object: cm(rv%objects, rv)}:
					case <-ctx.Done():
						return
					case <-w.stop:
						return
					}
				}
			}()
			return w, nil
		},
	}
}

// updates is the fake source's watch.
type updates struct {
	result   chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

// Stop ends the watch.
func (u *updates) Stop() { u.stopOnce.Do(func() { close(u.stop) }) }

// ResultChan returns the events; it is closed after Stop.
func (u *updates) ResultChan() <-chan watch.Event { return u.result }
