package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The timeline, drawn with gonum/plot: handler calls per second per
// subject (and writes per second), pending notifications per fanout
// handler, and the faults as bars, one row per kind, on one time axis.
// Each panel's legend sits in a column to its right, off the data.

var soakPalette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255}, {0, 0, 128, 255}, {128, 0, 0, 255},
	{0, 128, 128, 255}, {128, 128, 0, 255},
}

// The chart's size in pixels, and its resolution.
const (
	chartW, chartH = 1500, 960
	chartDPI       = 96
)

var (
	soakSans     = font.Font{Typeface: "Liberation", Variant: "Sans"}
	chartWidth   = vg.Length(chartW) * vg.Inch / chartDPI
	chartHeight  = vg.Length(chartH) * vg.Inch / chartDPI
	legendColumn = 3.2 * vg.Inch
	titleHeight  = 0.45 * vg.Inch
)

type chartSeries struct {
	name string
	xs   []float64
	ys   []float64
}

// writeSoakChart draws r's timeline as a PNG at path.
func writeSoakChart(path string, r *soakReport) (err error) {
	maxT := max(r.Elapsed, 1)
	if n := len(r.Samples); n > 0 {
		maxT = max(maxT, r.Samples[n-1].T)
	}

	names := map[string]bool{}
	for _, s := range r.Samples {
		for k := range s.Delivered {
			names[k] = true
		}
	}
	var rates []chartSeries
	for _, name := range sortedKeys(names) {
		rates = append(rates, ratesOf(r.Samples, func(s soakSample) (int64, bool) { v, ok := s.Delivered[name]; return v, ok }, name))
	}
	writes := ratesOf(r.Samples, func(s soakSample) (int64, bool) { return s.Writes, true }, "writes")

	peaks := map[string]int64{}
	for _, s := range r.Samples {
		for k, v := range s.Pending {
			peaks[k] = max(peaks[k], v)
		}
	}
	hs := sortedKeys(peaks)
	sort.SliceStable(hs, func(i, j int) bool { return peaks[hs[i]] > peaks[hs[j]] })
	var backlog []chartSeries
	for _, name := range hs[:min(len(hs), 12)] {
		cs := chartSeries{name: name}
		for _, s := range r.Samples {
			if v, ok := s.Pending[name]; ok {
				cs.xs, cs.ys = append(cs.xs, s.T), append(cs.ys, float64(v))
			}
		}
		backlog = append(backlog, cs)
	}

	img := vgimg.NewWith(vgimg.UseWH(chartWidth, chartHeight), vgimg.UseDPI(chartDPI), vgimg.UseBackgroundColor(color.White))
	c := draw.New(img)
	title := fmt.Sprintf("fanout soak, seed %d, %s, %d writes, %d faults, %d violations", r.Seed, r.Duration, r.Writes, len(r.Faults), r.Total)
	sty := draw.TextStyle{Color: color.Black, Font: font.From(soakSans, 16), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(8)}, title)

	body := draw.Crop(c, 0, 0, 0, -titleHeight)
	h := body.Max.Y - body.Min.Y
	rows := []vg.Length{0.36 * h, 0.36 * h, 0.28 * h} // rates, backlog, faults
	top := vg.Length(0)
	panels := []func(draw.Canvas, draw.Canvas) error{
		func(p, l draw.Canvas) error {
			return linePanel(p, l, "Handler calls per subject, and writes", "calls or writes per second", maxT, rates, &writes)
		},
		func(p, l draw.Canvas) error {
			return linePanel(p, l, "Pending notifications per fanout handler (the 12 largest)", "pending notifications", maxT, backlog, nil)
		},
		func(p, l draw.Canvas) error { return faultPanel(p, l, r, maxT) },
	}
	for i, draw1 := range panels {
		row := draw.Crop(body, 0, 0, h-top-rows[i], -top)
		plotArea := draw.Crop(row, vg.Points(6), -legendColumn, vg.Points(4), 0)
		legendArea := draw.Crop(row, row.Max.X-row.Min.X-legendColumn+vg.Points(10), 0, 0, -vg.Points(20))
		if err := draw1(plotArea, legendArea); err != nil {
			return err
		}
		top += rows[i]
	}

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	bw := bufio.NewWriter(f)
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// newSoakPlot is a plot with the chart's fonts and a time axis to maxT.
func newSoakPlot(title, yLabel string, maxT float64) *plot.Plot {
	p := plot.New()
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.X.Tick.Label.Font, &p.Y.Label.TextStyle.Font, &p.Y.Tick.Label.Font} {
		*f = font.From(soakSans, f.Size)
	}
	p.Title.Text = title
	p.X.Label.Text = "time since the soak started (s)"
	p.Y.Label.Text = yLabel
	p.X.Min, p.X.Max, p.Y.Min = 0, maxT, 0
	p.Add(plotter.NewGrid())
	return p
}

func newSoakLegend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font = font.From(soakSans, 10)
	l.ThumbnailWidth = vg.Points(24)
	return l
}

// linePanel plots series (and extra, in black, if not nil) into p, with
// their legend in l.
func linePanel(p, l draw.Canvas, title, yLabel string, maxT float64, series []chartSeries, extra *chartSeries) error {
	pl := newSoakPlot(title, yLabel, maxT)
	legend := newSoakLegend()
	add := func(s chartSeries, c color.Color) error {
		pts := make(plotter.XYs, len(s.xs))
		for i := range s.xs {
			pts[i] = plotter.XY{X: s.xs[i], Y: s.ys[i]}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		line.Color, line.Width = c, vg.Points(1.5)
		pl.Add(line)
		legend.Add(s.name, line)
		return nil
	}
	for i, s := range series {
		if len(s.xs) == 0 {
			continue
		}
		if err := add(s, soakPalette[i%len(soakPalette)]); err != nil {
			return err
		}
	}
	if extra != nil && len(extra.xs) > 0 {
		if err := add(*extra, color.Black); err != nil {
			return err
		}
	}
	maxV := 1.0
	for _, s := range append(series, chartSeries{ys: extraYs(extra)}) {
		for _, y := range s.ys {
			maxV = math.Max(maxV, y)
		}
	}
	pl.Y.Max = maxV * 1.05
	pl.Draw(p)
	legend.Draw(l)
	return nil
}

func extraYs(s *chartSeries) []float64 {
	if s == nil {
		return nil
	}
	return s.ys
}

// faultPanel draws one row of bars per fault kind, and a row of the
// quiescent checks (green converged, red not), from pause to convergence.
func faultPanel(p, l draw.Canvas, r *soakReport, maxT float64) error {
	pl := newSoakPlot("Faults and quiescent checks", "", maxT)
	kinds := sortedKeys(r.FaultsByKind)
	labels := append(append([]string(nil), kinds...), "quiescent check")
	var ticks []plot.Tick
	for i, k := range labels {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: k})
	}
	pl.Y.Tick.Marker = plot.ConstantTicks(ticks)
	pl.Y.Min, pl.Y.Max = -0.7, float64(len(labels))-0.3
	bar := func(y, from, to float64, c color.Color) error {
		line, err := plotter.NewLine(plotter.XYs{{X: from, Y: y}, {X: math.Max(to, from+maxT/400), Y: y}})
		if err != nil {
			return err
		}
		line.Color, line.Width = c, vg.Points(9)
		line.StepStyle = plotter.NoStep
		pl.Add(line)
		return nil
	}
	legend := newSoakLegend()
	for i, k := range kinds {
		c := soakPalette[i%len(soakPalette)]
		for _, f := range r.Faults {
			if f.Kind == k {
				if err := bar(float64(i), f.Start, f.End, c); err != nil {
					return err
				}
			}
		}
	}
	ok, failed := color.RGBA{0, 160, 0, 255}, color.RGBA{220, 0, 0, 255}
	for _, q := range r.Quiescent {
		c := ok
		if !q.OK {
			c = failed
		}
		if err := bar(float64(len(kinds)), q.At, q.At+q.ConvergedIn, c); err != nil {
			return err
		}
	}
	for _, e := range []struct {
		name string
		c    color.Color
	}{{"quiescent check converged", ok}, {"quiescent check failed", failed}} {
		t := &plotter.Line{}
		t.Color, t.Width = e.c, vg.Points(6)
		legend.Add(e.name, t)
	}
	pl.Draw(p)
	legend.Draw(l)
	return nil
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
