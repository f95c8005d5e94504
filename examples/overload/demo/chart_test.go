package demo

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"
	"time"
)

var chartOut = flag.String("chart-out", "", "also write the synthetic chart of TestChartThreeRuns to this path, to look at")

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

// TestChartThreeRuns draws three runs and one skipped run: the PNG shows
// each drawn run's colour, and the skipped run's colour not at all.
func TestChartThreeRuns(t *testing.T) {
	clientGo := syntheticRun("client-go v0.37.2", func(t float64) float64 { return 10 + 60*t }, func(t float64) int64 { return int64(20000 * t) })
	defaults := syntheticRun("fanout (defaults)", func(t float64) float64 { return 10 + 45*t }, func(t float64) int64 { return int64(19000 * t) })
	coalesce := syntheticRun("fanout (Coalesce 1000)", func(float64) float64 { return 12 }, func(float64) int64 { return 4000 })
	skipped := &Result{Title: "not drawn", Skipped: "not supported"}
	var b bytes.Buffer
	if err := writeChart(&b, []*Result{clientGo, defaults, coalesce, skipped}); err != nil {
		t.Fatal(err)
	}
	if *chartOut != "" {
		if err := os.WriteFile(*chartOut, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := decodePNG(t, b.Bytes())
	if got := img.Bounds().Size(); got != (image.Point{X: 960, Y: 768}) {
		t.Errorf("chart is %v pixels, want 960x768", got)
	}
	for i, c := range RunColors {
		n := countColor(img, c)
		if drawn := i < 3; drawn && n < 200 {
			t.Errorf("run %d's colour %v: %d pixels, want its lines", i, c, n)
		} else if !drawn && n != 0 {
			t.Errorf("skipped run's colour %v: %d pixels, want none", c, n)
		}
	}
}

// TestChartNoRuns still writes a PNG when nothing ran.
func TestChartNoRuns(t *testing.T) {
	var b bytes.Buffer
	if err := writeChart(&b, []*Result{{Title: "x", Skipped: "no"}}); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, b.Bytes())
	for _, c := range RunColors {
		if n := countColor(img, c); n != 0 {
			t.Errorf("colour %v: %d pixels on a chart without runs", c, n)
		}
	}
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("chart is not a PNG: %v", err)
	}
	return img
}

// countColor counts the pixels of exactly colour c.
func countColor(img image.Image, c color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)).(color.RGBA) == c {
				n++
			}
		}
	}
	return n
}

// TestCountLabel checks the backlog axis labels.
func TestCountLabel(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 950: "950", 4000: "4k", 2500000: "2.5M"} {
		if got := countLabel(v); got != want {
			t.Errorf("countLabel(%v) = %q, want %q", v, got, want)
		}
	}
}
