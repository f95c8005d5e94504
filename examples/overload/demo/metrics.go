package demo

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// LiveStats holds the registrations of the scenario that is running (or
// ran last), for the /metrics page.
type LiveStats struct {
	mu       sync.Mutex
	scenario string
	regs     [NumHandlers]Statser
}

// set makes regs, of the scenario titled scenario, the ones served.
func (ls *LiveStats) set(scenario string, regs [NumHandlers]Statser) {
	if ls == nil {
		return
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.scenario, ls.regs = scenario, regs
}

// handlerMetric is one per-handler series family of the /metrics page.
type handlerMetric struct {
	name, help, typ string
	value           func(s statsView) float64
}

// statsView is the part of informer.ListenerStats the page shows.
type statsView struct {
	pending, highWater                float64
	delivered, coalesced, panics, age float64
}

// handlerMetrics are named as contrib/prometheus names them.
var handlerMetrics = []handlerMetric{
	{"informer_handler_pending_notifications", "Number of notifications waiting to be delivered to an event handler.", "gauge", func(s statsView) float64 { return s.pending }},
	{"informer_handler_pending_notifications_high_water", "Largest number of notifications that have waited for an event handler at once.", "gauge", func(s statsView) float64 { return s.highWater }},
	{"informer_handler_delivered_notifications_total", "Total number of notifications delivered to an event handler.", "counter", func(s statsView) float64 { return s.delivered }},
	{"informer_handler_coalesced_notifications_total", "Total number of notifications merged into a notification already pending for an event handler.", "counter", func(s statsView) float64 { return s.coalesced }},
	{"informer_handler_panics_total", "Total number of event handler calls that panicked.", "counter", func(s statsView) float64 { return s.panics }},
	{"informer_handler_oldest_pending_notification_age_seconds", "Time the oldest notification pending for an event handler has waited, in seconds.", "gauge", func(s statsView) float64 { return s.age }},
}

// ServeHTTP writes the handlers' Stats in the Prometheus text format, with
// labels scenario and handler. The root module has no client_golang, so
// this is a small hand-written exposition; contrib/prometheus is the real
// provider.
func (ls *LiveStats) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	ls.write(w)
}

// write writes the exposition to w.
func (ls *LiveStats) write(w io.Writer) {
	ls.mu.Lock()
	scenario, regs := ls.scenario, ls.regs
	ls.mu.Unlock()
	var views [NumHandlers]statsView
	for i, r := range regs {
		if r == nil {
			continue
		}
		st := r.Stats()
		views[i] = statsView{
			pending: float64(st.Pending), highWater: float64(st.HighWater),
			delivered: float64(st.Delivered), coalesced: float64(st.Coalesced),
			panics: float64(st.Panics), age: st.OldestPendingAge.Seconds(),
		}
	}
	for _, m := range handlerMetrics {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", m.name, m.help, m.name, m.typ)
		for i, r := range regs {
			if r == nil {
				continue
			}
			fmt.Fprintf(w, "%s{scenario=%s,handler=%s} %v\n", m.name, labelValue(scenario), labelValue(HandlerNames[i]), m.value(views[i]))
		}
	}
}

// labelValue quotes v as a label value of the text format.
func labelValue(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v) + `"`
}

// ServeMetrics serves live at http://addr/metrics until shutdown is called.
func ServeMetrics(addr string, live *LiveStats) (shutdown func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics address: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", live)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}
