package e2e

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"sort"
)

// The timeline: handler calls per second per subject (and writes per
// second), pending notifications per fanout handler, and the faults as
// bars, one row per kind, on one time axis.

var soakPalette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255}, {0, 0, 128, 255}, {128, 0, 0, 255},
	{0, 128, 128, 255}, {128, 128, 0, 255},
}

const (
	chartW, chartH       = 1500, 960
	chartLeft, chartPlot = 80, 1060 // plot from chartLeft, chartPlot wide
)

type chartPanel struct {
	title    string
	top, h   int
	maxV     float64
	series   []chartSeries
	legendAt int
}

type chartSeries struct {
	name string
	xs   []float64
	ys   []float64
}

// writeSoakChart draws r's timeline as a PNG at path.
func writeSoakChart(path string, r *soakReport) error {
	img := image.NewRGBA(image.Rect(0, 0, chartW, chartH))
	soakRect(img, 0, 0, chartW, chartH, color.White)
	maxT := max(r.Elapsed, 1)
	if n := len(r.Samples); n > 0 {
		maxT = max(maxT, r.Samples[n-1].T)
	}
	soakText(img, chartLeft, 8, 3, color.Black, fmt.Sprintf("fanout soak, seed %d, %s, %d writes, %d faults, %d violations", r.Seed, r.Duration, r.Writes, len(r.Faults), r.Total))

	rate := chartPanel{title: "handler calls/s per subject, writes/s (black)", top: 50, h: 270}
	names := map[string]bool{}
	for _, s := range r.Samples {
		for k := range s.Delivered {
			names[k] = true
		}
	}
	for _, name := range sortedKeys(names) {
		rate.series = append(rate.series, ratesOf(r.Samples, func(s soakSample) (int64, bool) { v, ok := s.Delivered[name]; return v, ok }, name))
	}
	writes := ratesOf(r.Samples, func(s soakSample) (int64, bool) { return s.Writes, true }, "writes")

	backlog := chartPanel{title: "pending notifications per fanout handler (the 12 largest)", top: 370, h: 270}
	peaks := map[string]int64{}
	for _, s := range r.Samples {
		for k, v := range s.Pending {
			peaks[k] = max(peaks[k], v)
		}
	}
	hs := sortedKeys(peaks)
	sort.SliceStable(hs, func(i, j int) bool { return peaks[hs[i]] > peaks[hs[j]] })
	for _, name := range hs[:min(len(hs), 12)] {
		cs := chartSeries{name: name}
		for _, s := range r.Samples {
			if v, ok := s.Pending[name]; ok {
				cs.xs, cs.ys = append(cs.xs, s.T), append(cs.ys, float64(v))
			}
		}
		backlog.series = append(backlog.series, cs)
	}
	for _, p := range []*chartPanel{&rate, &backlog} {
		for _, s := range p.series {
			for _, y := range s.ys {
				p.maxV = max(p.maxV, y)
			}
		}
	}
	for _, y := range writes.ys {
		rate.maxV = max(rate.maxV, y)
	}
	drawChartPanel(img, &rate, maxT)
	drawSeries(img, &rate, writes, maxT, color.RGBA{0, 0, 0, 255})
	drawChartPanel(img, &backlog, maxT)

	// Faults: one row per kind.
	kinds := sortedKeys(r.FaultsByKind)
	top, rowH := 680, 20
	soakText(img, chartLeft, top-20, 2, color.Black, "faults")
	for i, k := range kinds {
		y := top + i*rowH
		c := soakPalette[i%len(soakPalette)]
		soakText(img, chartLeft+chartPlot+12, y+4, 2, c, k)
		for _, f := range r.Faults {
			if f.Kind != k {
				continue
			}
			x0 := chartLeft + int(f.Start/maxT*chartPlot)
			x1 := max(chartLeft+int(f.End/maxT*chartPlot), x0+3)
			soakRect(img, x0, y+2, x1-x0, rowH-6, c)
		}
	}
	// The quiescent checks, from the pause to convergence.
	y := top + len(kinds)*rowH
	soakText(img, chartLeft+chartPlot+12, y+4, 2, color.Black, "quiescent check")
	for _, q := range r.Quiescent {
		x0 := chartLeft + int(q.At/maxT*chartPlot)
		x1 := max(chartLeft+int((q.At+q.ConvergedIn)/maxT*chartPlot), x0+3)
		c := color.RGBA{0, 160, 0, 255}
		if !q.OK {
			c = color.RGBA{220, 0, 0, 255}
		}
		soakRect(img, x0, y+2, x1-x0, rowH-6, c)
	}
	timeAxis(img, y+rowH+4, maxT)

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ratesOf turns a cumulative counter into per-second rates.
func ratesOf(samples []soakSample, get func(soakSample) (int64, bool), name string) chartSeries {
	cs := chartSeries{name: name}
	var lastT float64
	var lastV int64
	have := false
	for _, s := range samples {
		v, ok := get(s)
		if !ok {
			have = false
			continue
		}
		if have && s.T > lastT && v >= lastV {
			cs.xs, cs.ys = append(cs.xs, s.T), append(cs.ys, float64(v-lastV)/(s.T-lastT))
		}
		lastT, lastV, have = s.T, v, true
	}
	return cs
}

func drawChartPanel(img *image.RGBA, p *chartPanel, maxT float64) {
	grey := color.RGBA{200, 200, 200, 255}
	soakText(img, chartLeft, p.top-18, 2, color.Black, p.title)
	soakRect(img, chartLeft, p.top, chartPlot, 1, grey)
	soakRect(img, chartLeft, p.top+p.h, chartPlot, 1, grey)
	soakRect(img, chartLeft, p.top, 1, p.h, grey)
	p.maxV = math.Max(p.maxV, 1)
	soakText(img, 4, p.top, 2, color.Black, fmt.Sprintf("%.0f", p.maxV))
	soakText(img, 4, p.top+p.h-10, 2, color.Black, "0")
	for i, s := range p.series {
		c := soakPalette[i%len(soakPalette)]
		drawSeries(img, p, s, maxT, c)
		soakText(img, chartLeft+chartPlot+12, p.top+i*16, 2, c, s.name)
	}
	timeAxis(img, p.top+p.h+4, maxT)
}

func drawSeries(img *image.RGBA, p *chartPanel, s chartSeries, maxT float64, c color.Color) {
	px := func(t float64) int { return chartLeft + int(t/maxT*chartPlot) }
	py := func(v float64) int { return p.top + p.h - int(v/p.maxV*float64(p.h)) }
	for i := 1; i < len(s.xs); i++ {
		soakLine(img, px(s.xs[i-1]), py(s.ys[i-1]), px(s.xs[i]), py(s.ys[i]), c)
	}
}

// timeAxis draws second ticks under a panel.
func timeAxis(img *image.RGBA, y int, maxT float64) {
	step := 10.0
	for _, s := range []float64{10, 30, 60, 120, 300, 600} {
		step = s
		if maxT/s <= 12 {
			break
		}
	}
	for t := 0.0; t <= maxT; t += step {
		x := chartLeft + int(t/maxT*chartPlot)
		soakRect(img, x, y, 1, 4, color.Black)
		soakText(img, x-4, y+6, 2, color.Black, fmt.Sprintf("%.0fs", t))
	}
}
