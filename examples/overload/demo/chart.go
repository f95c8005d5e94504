package demo

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Chart size and layout.
const (
	chartWidth  = 10 * vg.Inch
	chartHeight = 8 * vg.Inch
	chartDPI    = 96
	// headerHeight holds the title and, below it, the legend: outside
	// both plots, so that it covers no data.
	headerHeight = 1.3 * vg.Inch
)

// RunColors colours the runs in the order Run makes them: client-go red,
// fanout's defaults orange, coalescing blue.
var RunColors = []color.RGBA{
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// panel is one plot: a value per sample against time.
type panel struct {
	title, yLabel string
	ticks         plot.Ticker
	value         func(s Sample) float64
}

// drawn is one run on the chart, with its colour.
type drawn struct {
	r     *Result
	color color.Color
}

// writeChart draws, for every run that ran, the heap and the stalled
// handler's backlog over time as a PNG image.
func writeChart(w io.Writer, results []*Result) error {
	var ran []drawn
	for i, r := range results {
		if r.Skipped != "" || len(r.Samples) == 0 {
			continue
		}
		ran = append(ran, drawn{r, RunColors[i%len(RunColors)]})
	}
	panels := []panel{
		{
			title:  "Heap",
			yLabel: "heap in use (MiB)",
			ticks:  plot.DefaultTicks{},
			value:  func(s Sample) float64 { return s.HeapMiB },
		},
		{
			title:  "Stalled handler's backlog",
			yLabel: "pending notifications",
			ticks:  countTicks{},
			value:  func(s Sample) float64 { return float64(s.Backlog[Stalled]) },
		},
	}

	img := vgimg.NewWith(vgimg.UseWH(chartWidth, chartHeight), vgimg.UseDPI(chartDPI), vgimg.UseBackgroundColor(color.White))
	c := draw.New(img)
	header := draw.Crop(c, 0, 0, chartHeight-headerHeight, 0)
	body := draw.Crop(c, 0, 0, 0, -headerHeight)
	drawHeader(header, "fanout overload demo: the same load and handlers on client-go and fanout", ran)
	if len(ran) == 0 {
		centered(body, "no run produced samples", 14)
	} else {
		half := (chartHeight - headerHeight) / 2
		for i, p := range panels {
			pl, err := panelPlot(p, ran)
			if err != nil {
				return err
			}
			top := vg.Length(i) * half
			pl.Draw(draw.Crop(body, vg.Points(8), -vg.Points(16), half*vg.Length(1-i)+vg.Points(6), -top))
		}
	}
	bw := bufio.NewWriter(w)
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(bw); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return bw.Flush()
}

// panelPlot plots p's value of every run against time, with a dashed
// line where each run's load ended.
func panelPlot(p panel, ran []drawn) (*plot.Plot, error) {
	pl := plot.New()
	sansSerif(pl)
	pl.Title.Text = p.title
	pl.Title.TextStyle.Font.Size = 14
	pl.X.Label.Text = "time since the load started (s)"
	pl.Y.Label.Text = p.yLabel
	pl.Y.Tick.Marker = p.ticks
	pl.Y.Min = 0
	pl.X.Min = 0
	pl.Add(plotter.NewGrid())
	maxV := 0.0
	for _, d := range ran {
		for _, s := range d.r.Samples {
			maxV = max(maxV, p.value(s))
		}
	}
	maxV = math.Max(maxV, 1)
	for _, d := range ran {
		pts := make(plotter.XYs, len(d.r.Samples))
		for j, s := range d.r.Samples {
			pts[j] = plotter.XY{X: s.At.Seconds(), Y: p.value(s)}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("chart: %s: %w", d.r.Title, err)
		}
		line.Color = d.color
		line.Width = vg.Points(2)
		end := loadEndLine(d.r.LoadEnd.Seconds(), maxV, d.color)
		pl.Add(end, line)
	}
	pl.Y.Max = maxV * 1.05
	return pl, nil
}

// loadEndLine is the dashed vertical line at time t, from 0 to top.
func loadEndLine(t, top float64, c color.Color) *plotter.Line {
	l := &plotter.Line{XYs: plotter.XYs{{X: t, Y: 0}, {X: t, Y: top}}}
	l.Color = c
	l.Width = vg.Points(1)
	l.Dashes = []vg.Length{vg.Points(5), vg.Points(4)}
	return l
}

// drawHeader writes the title and the legend: one entry per run, then the
// dashed load-end line.
func drawHeader(c draw.Canvas, title string, ran []drawn) {
	sty := textStyle(16)
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YTop
	c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(10)}, title)

	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font = font.From(sans, 12)
	legend.ThumbnailWidth = vg.Points(30)
	for _, d := range ran {
		l := &plotter.Line{}
		l.Color, l.Width = d.color, vg.Points(2)
		legend.Add(d.r.Title, l)
	}
	legend.Add("load ends, stalled handler released (dashed, in the run's colour)",
		loadEndLine(0, 0, color.Gray{Y: 0x55}))
	legend.Draw(draw.Crop(c, vg.Points(70), 0, 0, -vg.Points(36)))
}

// centered writes s in the middle of c.
func centered(c draw.Canvas, s string, size vg.Length) {
	sty := textStyle(size)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, c.Center(), s)
}

// sans is the charts' typeface, from the Liberation fonts gonum/plot
// embeds.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// sansSerif sets every text of pl in sans, keeping the default sizes.
func sansSerif(pl *plot.Plot) {
	for _, f := range []*font.Font{
		&pl.Title.TextStyle.Font, &pl.Legend.TextStyle.Font,
		&pl.X.Label.TextStyle.Font, &pl.X.Tick.Label.Font,
		&pl.Y.Label.TextStyle.Font, &pl.Y.Tick.Label.Font,
	} {
		*f = font.From(sans, f.Size)
	}
}

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sans, size),
		Handler: plot.DefaultTextHandler,
	}
}

// countTicks are the default ticks labelled with a k or M suffix.
type countTicks struct{}

// Ticks implements plot.Ticker.
func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = countLabel(ticks[i].Value)
		}
	}
	return ticks
}

// trimFloat formats v without needless decimals.
func trimFloat(v float64) string { return fmt.Sprintf("%g", math.Round(v*100)/100) }

// countLabel formats a count with a k or M suffix.
func countLabel(v float64) string {
	switch {
	case v >= 1e6:
		return trimFloat(v/1e6) + "M"
	case v >= 1e3:
		return trimFloat(v/1e3) + "k"
	}
	return trimFloat(v)
}
