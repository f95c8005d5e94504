package demo

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	chartWidth   = 960
	marginLeft   = 90
	marginRight  = 30
	marginTop    = 100 // title and legend
	panelHeight  = 250
	panelGap     = 70
	marginBottom = 50
	plotWidth    = chartWidth - marginLeft - marginRight
	chartHeight  = marginTop + 2*panelHeight + panelGap + marginBottom
)

// runColors colours the runs in order: client-go red, coalescing blue.
var runColors = []string{"#d62728", "#1f77b4", "#2ca02c", "#9467bd"}

// panel is one plot: a value per sample against time.
type panel struct {
	title string
	unit  func(v float64) string // tick label
	value func(s Sample) float64
	top   float64 // y of the plot's top edge
}

// writeChart draws, for every run that ran, the heap and the stalled
// handler's backlog over time as an SVG document.
func writeChart(w io.Writer, results []*Result) error {
	var ran []*Result
	var colors []string
	maxT := 1.0
	for i, r := range results {
		if r.Skipped != "" || len(r.Samples) == 0 {
			continue
		}
		ran = append(ran, r)
		colors = append(colors, runColors[i%len(runColors)])
		maxT = max(maxT, r.Samples[len(r.Samples)-1].At.Seconds())
	}
	panels := []panel{
		{
			title: "heap (MiB)",
			unit:  func(v float64) string { return trimFloat(v) },
			value: func(s Sample) float64 { return s.HeapMiB },
			top:   marginTop,
		},
		{
			title: "stalled handler backlog (pending notifications)",
			unit:  countLabel,
			value: func(s Sample) float64 { return float64(s.Backlog[Stalled]) },
			top:   marginTop + panelHeight + panelGap,
		},
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, chartHeight, chartWidth, chartHeight)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", chartWidth, chartHeight)
	text(&b, chartWidth/2, 24, "middle", 16, "fanout overload demo: client-go's unbounded buffer vs coalescing")
	legend(&b, ran, colors)
	if len(ran) == 0 {
		text(&b, chartWidth/2, chartHeight/2, "middle", 14, "no run produced samples")
	}
	for _, p := range panels {
		drawPanel(&b, p, ran, colors, maxT)
	}
	b.WriteString("</svg>\n")
	bw := bufio.NewWriter(w)
	if _, err := bw.Write(b.Bytes()); err != nil {
		return err
	}
	return bw.Flush()
}

func legend(b *bytes.Buffer, ran []*Result, colors []string) {
	x := float64(marginLeft)
	for i, r := range ran {
		fmt.Fprintf(b, `<line x1="%.1f" y1="50" x2="%.1f" y2="50" stroke="%s" stroke-width="3"/>`+"\n", x, x+30, colors[i])
		text(b, x+36, 54, "start", 12, r.Title)
		x += 60 + 7*float64(len(r.Title))
	}
	fmt.Fprintf(b, `<line x1="%.1f" y1="50" x2="%.1f" y2="50" stroke="#555" stroke-dasharray="5,4"/>`+"\n", x, x+30)
	text(b, x+36, 54, "start", 12, "load ends, stalled handler released")
}

func drawPanel(b *bytes.Buffer, p panel, ran []*Result, colors []string, maxT float64) {
	maxV := 0.0
	for _, r := range ran {
		for _, s := range r.Samples {
			maxV = max(maxV, p.value(s))
		}
	}
	yStep := niceStep(maxV)
	yMax := math.Max(yStep, math.Ceil(maxV/yStep)*yStep)
	tStep := niceStep(maxT)
	tMax := math.Ceil(maxT/tStep) * tStep
	x := func(t float64) float64 { return marginLeft + t/tMax*plotWidth }
	y := func(v float64) float64 { return p.top + panelHeight - v/yMax*panelHeight }
	bottom := p.top + panelHeight

	text(b, marginLeft, p.top-10, "start", 13, p.title)
	for v := 0.0; v <= yMax+yStep/2; v += yStep {
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e5e5e5"/>`+"\n", marginLeft, y(v), marginLeft+plotWidth, y(v))
		text(b, marginLeft-8, y(v)+4, "end", 11, p.unit(v))
	}
	for t := 0.0; t <= tMax+tStep/2; t += tStep {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", x(t), bottom, x(t), bottom+5)
		text(b, x(t), bottom+18, "middle", 11, trimFloat(t)+" s")
	}
	fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333"/>`+"\n", marginLeft, p.top, marginLeft, bottom)
	fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333"/>`+"\n", marginLeft, bottom, marginLeft+plotWidth, bottom)
	text(b, marginLeft+plotWidth/2, bottom+36, "middle", 12, "time since the load started")

	for i, r := range ran {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="5,4" opacity="0.7"/>`+"\n",
			x(r.LoadEnd.Seconds()), p.top, x(r.LoadEnd.Seconds()), bottom, colors[i])
		var pts strings.Builder
		for j, s := range r.Samples {
			if j > 0 {
				pts.WriteByte(' ')
			}
			fmt.Fprintf(&pts, "%.1f,%.1f", x(s.At.Seconds()), y(p.value(s)))
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", colors[i], pts.String())
	}
}

// text writes an escaped text element.
func text(b *bytes.Buffer, x, y float64, anchor string, size int, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d">`, x, y, anchor, size)
	_ = xml.EscapeText(b, []byte(s)) // writing to a bytes.Buffer cannot fail
	b.WriteString("</text>\n")
}

// niceStep returns a tick step of 1, 2 or 5 times a power of ten that
// divides [0, maxV] into at most about six intervals.
func niceStep(maxV float64) float64 {
	if maxV <= 0 || math.IsNaN(maxV) || math.IsInf(maxV, 0) {
		return 1
	}
	raw := maxV / 5
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= raw {
			return m * pow
		}
	}
	return 10 * pow
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
