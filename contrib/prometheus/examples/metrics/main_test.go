package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The example serves the slow handler's series on /metrics while it runs,
// and stops cleanly.
func TestServesHandlerMetrics(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, 10, time.Millisecond, 20*time.Millisecond) }()
	defer func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("run returned %v, want context.Canceled", err)
		}
	}()

	want := []string{
		`informer_handler_pending_notifications{handler="slow",informer="configmaps"}`,
		`informer_handler_delivered_notifications_total{handler="fast",informer="configmaps"}`,
		`informer_handler_duration_seconds_count{handler="slow",informer="configmaps"}`,
	}
	var page string
	for range 200 { // the informer lists, then its handlers start: poll
		resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			page = string(b)
			if containsAll(page, want) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("page lacks some of %q:\n%s", want, page)
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
