package e2e

import (
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var soakChartOut = flag.String("soak-chart-out", "", "also write TestSoakChartSynthetic's chart to this path, to look at")

// TestSoakChartSynthetic draws the timeline of a synthetic report with
// several subjects, handlers, fault kinds and quiescent checks, as a soak
// would write it, without a cluster.
func TestSoakChartSynthetic(t *testing.T) {
	r := &soakReport{Seed: 7, Duration: "2m", Elapsed: 120, Writes: 12000,
		FaultsByKind: map[string]int{"apiserver-kill": 2, "watch-close": 3, "etcd-pause": 1}}
	r.Faults = []soakFault{
		{Kind: "apiserver-kill", Start: 20, End: 26}, {Kind: "apiserver-kill", Start: 80, End: 85},
		{Kind: "watch-close", Start: 10, End: 10}, {Kind: "watch-close", Start: 50, End: 50}, {Kind: "watch-close", Start: 95, End: 95},
		{Kind: "etcd-pause", Start: 60, End: 64},
	}
	r.Quiescent = []soakQuiescent{{At: 40, ConvergedIn: 2, OK: true}, {At: 110, ConvergedIn: 3, OK: true}}
	for i := 1; i <= 120; i++ {
		x := float64(i)
		dip := 1.0
		if (i > 20 && i < 27) || (i > 80 && i < 86) {
			dip = 0.1
		}
		r.Samples = append(r.Samples, soakSample{
			T: x, Writes: int64(i * 100),
			Delivered: map[string]int64{"main/client-go": int64(i * 100), "main/fanout": int64(i * 100), "second/fanout": int64(i * 98)},
			Pending: map[string]int64{
				"main/fanout/grow":     int64(400 * dip * (1 + math.Sin(x/7))),
				"main/fanout/coalesce": int64(150 * (1 + math.Cos(x/11))),
				"main/fanout/block":    int64(i % 30),
			},
		})
	}
	path := filepath.Join(t.TempDir(), "timeline.png")
	if *soakChartOut != "" {
		path = *soakChartOut
	}
	if err := writeSoakChart(path, r); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != chartW || b.Dy() != chartH {
		t.Fatalf("chart is %v, want %dx%d", b, chartW, chartH)
	}
}
