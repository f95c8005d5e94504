package prometheus_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	fanoutprom "github.com/kfanout/fanout/contrib/prometheus"
	"github.com/kfanout/fanout/informer"
)

// Example installs both providers process-wide on the default registry and
// serves them with promhttp, as a controller's main would. The handler
// metrics a listener writes then appear on /metrics.
func Example() {
	listeners, err := fanoutprom.NewListenerMetricsProvider(prom.DefaultRegisterer)
	if err != nil {
		panic(err)
	}
	informers, err := fanoutprom.NewInformerMetricsProvider(prom.DefaultRegisterer)
	if err != nil {
		panic(err)
	}
	// Before any informer is created; the first call wins.
	informer.SetListenerMetricsProvider(listeners)
	informer.SetInformerMetricsProvider(informers)

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.Handler())
	// go http.ListenAndServe(":8080", mux)

	// What a listener of handler "reconciler" on the pods informer does
	// while its handler is busy with the first of three notifications.
	id := informer.ListenerID{Informer: "pods", Handler: "reconciler"}
	listeners.NewPendingMetric(id).Set(3)
	listeners.NewDeliveredMetric(id).Inc()

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "informer_handler_pending_notifications{") ||
			strings.HasPrefix(line, "informer_handler_delivered_notifications_total{") {
			fmt.Println(line)
		}
	}
	// The informer calls Release when the handler is removed or the
	// informer stops; its series disappear from /metrics.
	listeners.Release(id)

	// Output:
	// informer_handler_delivered_notifications_total{handler="reconciler",informer="pods"} 1
	// informer_handler_pending_notifications{handler="reconciler",informer="pods"} 3
}
