package main

import (
	"bytes"
	"context"
	"image/png"
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

// TestDemoTinyRun runs the three scenarios on a tiny source and checks
// the table, the counters and the chart.
func TestDemoTinyRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for a few seconds")
	}
	cfg := tinyConfig()
	var progress, out bytes.Buffer
	cfg.Progress = &progress
	chart := filepath.Join(t.TempDir(), "chart.png")
	results, err := demo.Run(context.Background(), cfg, newDemoSource, &out, chart)
	if err != nil {
		t.Fatalf("runDemo: %v\n%s", err, out.String())
	}
	t.Logf("demo output:\n%s", out.String())

	if len(results) != 3 {
		t.Fatalf("got %d results, want 3", len(results))
	}
	clientGo, defaults, coalesce := results[0], results[1], results[2]
	if want := "client-go v0.35.0"; clientGo.Title != want {
		t.Errorf("first run titled %q, want %q", clientGo.Title, want)
	}
	for _, r := range []*demo.Result{clientGo, defaults} {
		if r.Skipped != "" {
			t.Fatalf("the %s run was skipped: %s", r.Title, r.Skipped)
		}
		checkRun(t, cfg, r)
		// The stalled handler blocked in its first initial-list add while
		// every other notification queued behind it.
		if got, min := r.Handlers[demo.Stalled].MaxBacklog, int64(cfg.Objects+cfg.MaxPending); got <= min {
			t.Errorf("%s run: stalled max backlog %d, want it to grow past %d", r.Title, got, min)
		}
	}
	if got := clientGo.Handlers[demo.Stalled].Coalesced; got != -1 {
		t.Errorf("client-go run: stalled coalesced %d, want -1 (client-go cannot coalesce)", got)
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
		if strings.Contains(line, clientGo.Title) && strings.Contains(line, defaults.Title) && strings.Contains(line, coalesce.Title) {
			header = line
			break
		}
	}
	if header == "" {
		t.Errorf("no table header naming the three runs (%q, %q, %q)", clientGo.Title, defaults.Title, coalesce.Title)
	}
	for _, row := range []string{"events produced", "fast delivered / max backlog", "slow delivered / max backlog",
		"stalled delivered / max backlog", "stalled notifications coalesced", "n/a", "peak heap",
		"heap after stop (after GC)", "chart: " + chart} {
		if !strings.Contains(table, row) {
			t.Errorf("output lacks %q", row)
		}
	}
	if !strings.Contains(progress.String(), "backlog fast") {
		t.Errorf("no progress line in %q", progress.String())
	}

	checkPNG(t, chart)
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

// checkPNG checks that the chart is a PNG image of the demo's size.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("chart is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 600 {
		t.Errorf("chart is %dx%d pixels, want at least 800x600", b.Dx(), b.Dy())
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
		{"runs", func(c *demo.Config) { c.Runs = []string{"grow"} }, `unknown run "grow", want one of client-go, defaults, coalesce`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaultConfig()
			tc.change(&cfg)
			_, err := demo.Run(context.Background(), cfg, newDemoSource, io.Discard, filepath.Join(t.TempDir(), "x.png"))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got error %v, want %q", err, tc.want)
			}
		})
	}
	if err := defaultConfig().Validate(); err != nil {
		t.Errorf("default config: %v", err)
	}
}
