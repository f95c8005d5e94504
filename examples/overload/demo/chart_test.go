package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// syntheticRun makes a Result whose heap and stalled backlog follow
// heap(t) and backlog(t) for 10 s, sampled every 0.5 s.
func syntheticRun(title string, heap func(t float64) float64, backlog func(t float64) int64) *Result {
	r := &Result{Title: title, LoadEnd: 8 * time.Second}
	for i := 0; i <= 20; i++ {
		at := time.Duration(i) * 500 * time.Millisecond
		s := Sample{At: at, HeapMiB: heap(at.Seconds())}
		s.Backlog[Stalled] = backlog(at.Seconds())
		r.Samples = append(r.Samples, s)
	}
	return r
}

// TestChartTwoRuns draws two runs and one skipped run: one polyline per
// drawn run and panel, in the run's colour, and a legend naming the drawn
// runs only.
func TestChartTwoRuns(t *testing.T) {
	grow := syntheticRun("client-go (Grow)", func(t float64) float64 { return 10 + 60*t }, func(t float64) int64 { return int64(20000 * t) })
	coalesce := syntheticRun("fanout (Coalesce 1000)", func(float64) float64 { return 12 }, func(float64) int64 { return 4000 })
	skipped := &Result{Title: "not drawn", Skipped: "not supported yet"}
	var b bytes.Buffer
	if err := writeChart(&b, []*Result{grow, coalesce, skipped}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chart.svg")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, path, 4)
	svg := b.String()
	for _, want := range []string{
		`stroke="#d62728" stroke-width="2" points="90.0,`, // grow, from x = marginLeft
		`stroke="#1f77b4" stroke-width="2" points="90.0,`, // coalesce
		">client-go (Grow)</text>",
		">fanout (Coalesce 1000)</text>",
		">200k</text>", // backlog axis reaches 200,000
		">10 s</text>",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(svg, "not drawn") {
		t.Error("chart names the skipped run")
	}
}

// TestChartNoRuns still writes a valid document when nothing ran.
func TestChartNoRuns(t *testing.T) {
	var b bytes.Buffer
	if err := writeChart(&b, []*Result{{Title: "x", Skipped: "no"}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chart.svg")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, path, 0)
	if !strings.Contains(b.String(), "no run produced samples") {
		t.Error("empty chart does not say why")
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
	root, polylines, err := ChartSummary(f)
	if err != nil {
		t.Fatalf("chart is not well-formed XML: %v", err)
	}
	if root != "svg" || polylines != wantPolylines {
		t.Errorf("chart: root <%s> with %d polylines, want <svg> with %d", root, polylines, wantPolylines)
	}
}

// TestNiceStep checks the chart's tick steps.
func TestNiceStep(t *testing.T) {
	for _, tc := range []struct{ max, want float64 }{
		{0, 1}, {1, 0.2}, {9, 2}, {25, 5}, {600, 200}, {500000, 100000},
	} {
		if got := niceStep(tc.max); got != tc.want {
			t.Errorf("niceStep(%v) = %v, want %v", tc.max, got, tc.want)
		}
	}
	for v, want := range map[float64]string{0: "0", 950: "950", 4000: "4k", 2500000: "2.5M"} {
		if got := countLabel(v); got != want {
			t.Errorf("countLabel(%v) = %q, want %q", v, got, want)
		}
	}
}
