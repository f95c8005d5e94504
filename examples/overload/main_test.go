package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kfanout/fanout/examples/overload/demo"
)

// TestMain fails the tests if a run leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func tinyConfig() demo.Config {
	return demo.Config{
		Objects:    50,
		Rate:       4000,
		Payload:    16,
		Duration:   time.Second,
		SlowDelay:  10 * time.Millisecond,
		MaxPending: 20,
		Drain:      10 * time.Second, // an upper bound: the drain ends once stalled is empty
		Sample:     50 * time.Millisecond,
	}
}

// TestDemoTinyRun runs both scenarios on a tiny source and checks the
// table, the counters and the chart.
func TestDemoTinyRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for a few seconds")
	}
	cfg := tinyConfig()
	var progress, out bytes.Buffer
	cfg.Progress = &progress
	chart := filepath.Join(t.TempDir(), "chart.svg")
	results, err := demo.Run(context.Background(), cfg, newDemoSource, &out, chart)
	if err != nil {
		t.Fatalf("runDemo: %v\n%s", err, out.String())
	}
	t.Logf("demo output:\n%s", out.String())

	if len(results) != 2 {
		t.Fatalf("got %d results, want 2", len(results))
	}
	grow, coalesce := results[0], results[1]
	if grow.Skipped != "" {
		t.Fatalf("the client-go run was skipped: %s", grow.Skipped)
	}
	checkRun(t, cfg, grow)
	// The stalled handler blocked in its first initial-list add while
	// every other notification queued behind it.
	if got, min := grow.Handlers[demo.Stalled].MaxBacklog, int64(cfg.Objects+cfg.MaxPending); got <= min {
		t.Errorf("client-go run: stalled max backlog %d, want it to grow past %d", got, min)
	}

	if coalesce.Skipped != "" {
		t.Fatalf("the coalescing run was skipped: %s", coalesce.Skipped)
	}
	checkRun(t, cfg, coalesce)
	for _, h := range []int{demo.Slow, demo.Stalled} {
		if got, bound := coalesce.Handlers[h].MaxBacklog, int64(cfg.Objects+cfg.MaxPending); got > bound {
			t.Errorf("coalescing run: %s max backlog %d exceeds objects + MaxPending = %d", demo.HandlerNames[h], got, bound)
		}
	}
	if coalesce.Handlers[demo.Stalled].Coalesced == 0 {
		t.Errorf("coalescing run: the stalled handler coalesced nothing")
	}

	table := out.String()
	header := ""
	for line := range strings.Lines(table) {
		if strings.Contains(line, grow.Title) && strings.Contains(line, coalesce.Title) {
			header = line
			break
		}
	}
	if header == "" {
		t.Errorf("no table header naming both runs (%q, %q)", grow.Title, coalesce.Title)
	}
	for _, row := range []string{"events produced", "fast delivered / max backlog", "slow delivered / max backlog",
		"stalled delivered / max backlog", "peak heap", "heap after stop (after GC)", "chart: " + chart} {
		if !strings.Contains(table, row) {
			t.Errorf("output lacks %q", row)
		}
	}
	if !strings.Contains(progress.String(), "backlog fast") {
		t.Errorf("no progress line in %q", progress.String())
	}

	checkSVG(t, chart, 4) // heap and stalled backlog, for both runs
}

// checkRun checks the counters every completed run must show.
func checkRun(t *testing.T, cfg demo.Config, r *demo.Result) {
	t.Helper()
	if r.Produced == 0 {
		t.Fatalf("%s: no events produced", r.Title)
	}
	if got, want := r.Handlers[demo.Fast].Delivered, uint64(cfg.Objects)+r.Produced; got != want {
		t.Errorf("%s: fast delivered %d, want objects + produced = %d", r.Title, got, want)
	}
	if r.Handlers[demo.Stalled].Pending != 0 || r.Current != cfg.Objects {
		t.Errorf("%s: after the drain stalled has %d pending and is current on %d of %d objects, want 0 and all",
			r.Title, r.Handlers[demo.Stalled].Pending, r.Current, cfg.Objects)
	}
	if got, limit := r.Handlers[demo.Slow].Delivered, uint64(r.LoadEnd/cfg.SlowDelay)+2; got == 0 || got > limit+uint64(cfg.Drain/cfg.SlowDelay) {
		t.Errorf("%s: slow delivered %d, want between 1 and what %v per call allows", r.Title, got, cfg.SlowDelay)
	}
	if r.PeakHeap == 0 || len(r.Samples) < 2 {
		t.Errorf("%s: peak heap %d from %d samples", r.Title, r.PeakHeap, len(r.Samples))
	}
}

// checkSVG parses the chart as XML and counts its polylines (one per run
// and panel).
func checkSVG(t *testing.T, path string, wantPolylines int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	root, polylines, err := demo.ChartSummary(f)
	if err != nil {
		t.Fatalf("chart is not well-formed XML: %v", err)
	}
	if root != "svg" || polylines != wantPolylines {
		t.Errorf("chart: root <%s> with %d polylines, want <svg> with %d", root, polylines, wantPolylines)
	}
}

// TestConfigValidate checks that bad flags get a clear error.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*demo.Config)
		want   string
	}{
		{"objects", func(c *demo.Config) { c.Objects = 0 }, "objects must be at least 1, got 0"},
		{"rate", func(c *demo.Config) { c.Rate = -5 }, "rate must be at least 1 update per second, got -5"},
		{"duration", func(c *demo.Config) { c.Duration = 0 }, "duration must be positive, got 0s"},
		{"max-pending", func(c *demo.Config) { c.MaxPending = -1 }, "max-pending must not be negative, got -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaultConfig()
			tc.change(&cfg)
			_, err := demo.Run(context.Background(), cfg, newDemoSource, io.Discard, filepath.Join(t.TempDir(), "x.svg"))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got error %v, want %q", err, tc.want)
			}
		})
	}
	if err := defaultConfig().Validate(); err != nil {
		t.Errorf("default config: %v", err)
	}
}
