package demo

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kfanout/fanout/informer"
)

// fixedStats is a registration with fixed counters.
type fixedStats informer.ListenerStats

func (f fixedStats) Stats() informer.ListenerStats { return informer.ListenerStats(f) }

// The /metrics page lists every family with HELP and TYPE, and one series
// per handler of the current scenario with its Stats.
func TestMetricsPage(t *testing.T) {
	live := &LiveStats{}
	live.set(`fanout (Coalesce "1000")`, [NumHandlers]Statser{
		fixedStats{Delivered: 7},
		fixedStats{Pending: 2, HighWater: 5, Delivered: 3, Coalesced: 4, OldestPendingAge: 1500 * time.Millisecond},
		fixedStats{Pending: 9, HighWater: 9, Delivered: 1, Panics: 1},
	})
	rec := httptest.NewRecorder()
	live.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	if ct := rec.Result().Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type = %q", ct)
	}
	const sc = `scenario="fanout (Coalesce \"1000\")"`
	want := strings.Join([]string{
		"# HELP informer_handler_pending_notifications Number of notifications waiting to be delivered to an event handler.",
		"# TYPE informer_handler_pending_notifications gauge",
		"informer_handler_pending_notifications{" + sc + `,handler="fast"} 0`,
		"informer_handler_pending_notifications{" + sc + `,handler="slow"} 2`,
		"informer_handler_pending_notifications{" + sc + `,handler="stalled"} 9`,
		"# HELP informer_handler_pending_notifications_high_water Largest number of notifications that have waited for an event handler at once.",
		"# TYPE informer_handler_pending_notifications_high_water gauge",
		"informer_handler_pending_notifications_high_water{" + sc + `,handler="fast"} 0`,
		"informer_handler_pending_notifications_high_water{" + sc + `,handler="slow"} 5`,
		"informer_handler_pending_notifications_high_water{" + sc + `,handler="stalled"} 9`,
		"# HELP informer_handler_delivered_notifications_total Total number of notifications delivered to an event handler.",
		"# TYPE informer_handler_delivered_notifications_total counter",
		"informer_handler_delivered_notifications_total{" + sc + `,handler="fast"} 7`,
		"informer_handler_delivered_notifications_total{" + sc + `,handler="slow"} 3`,
		"informer_handler_delivered_notifications_total{" + sc + `,handler="stalled"} 1`,
		"# HELP informer_handler_coalesced_notifications_total Total number of notifications merged into a notification already pending for an event handler.",
		"# TYPE informer_handler_coalesced_notifications_total counter",
		"informer_handler_coalesced_notifications_total{" + sc + `,handler="fast"} 0`,
		"informer_handler_coalesced_notifications_total{" + sc + `,handler="slow"} 4`,
		"informer_handler_coalesced_notifications_total{" + sc + `,handler="stalled"} 0`,
		"# HELP informer_handler_panics_total Total number of event handler calls that panicked.",
		"# TYPE informer_handler_panics_total counter",
		"informer_handler_panics_total{" + sc + `,handler="fast"} 0`,
		"informer_handler_panics_total{" + sc + `,handler="slow"} 0`,
		"informer_handler_panics_total{" + sc + `,handler="stalled"} 1`,
		"# HELP informer_handler_oldest_pending_notification_age_seconds Time the oldest notification pending for an event handler has waited, in seconds.",
		"# TYPE informer_handler_oldest_pending_notification_age_seconds gauge",
		"informer_handler_oldest_pending_notification_age_seconds{" + sc + `,handler="fast"} 0`,
		"informer_handler_oldest_pending_notification_age_seconds{" + sc + `,handler="slow"} 1.5`,
		"informer_handler_oldest_pending_notification_age_seconds{" + sc + `,handler="stalled"} 0`,
	}, "\n") + "\n"
	if string(body) != want {
		t.Fatalf("page:\n%s\nwant:\n%s", body, want)
	}
}

// Before any scenario, the page has only HELP and TYPE lines; a nil
// LiveStats (no -metrics-addr) ignores set.
func TestMetricsPageEmpty(t *testing.T) {
	var none *LiveStats
	none.set("x", [NumHandlers]Statser{})
	var b strings.Builder
	(&LiveStats{}).write(&b)
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if !strings.HasPrefix(line, "# ") {
			t.Fatalf("series before any scenario: %q", line)
		}
	}
}

// ServeMetrics listens on the address and serves the page.
func TestServeMetrics(t *testing.T) {
	live := &LiveStats{}
	live.set("s", [NumHandlers]Statser{fixedStats{Delivered: 1}, fixedStats{}, fixedStats{}})
	shutdown, err := ServeMetrics("127.0.0.1:0", live)
	if err != nil {
		t.Fatal(err)
	}
	shutdown()
	if _, err := ServeMetrics("256.0.0.1:1", live); err == nil {
		t.Fatal("ServeMetrics on a bad address: no error")
	}
}
