package debugpage

import (
	"strconv"
	"strings"
)

// The sparkline's size in SVG user units (pixels).
const (
	sparkWidth  = 160
	sparkHeight = 28
	sparkPad    = 2
)

// sparkline is a handler's backlog drawn as an SVG polyline.
type sparkline struct {
	// Points is the polyline's points attribute ("x,y x,y ..."); empty
	// without samples.
	Points string
	// Max is the largest backlog drawn; the top of the scale is Max, or 1
	// when Max is 0.
	Max int64
}

// newSparkline draws samples, oldest first, in a box capacity samples
// wide: the newest sample is at the right edge and each older one a fixed
// step to its left, so the time scale does not change as the history
// fills. The vertical scale runs from 0 at the bottom to the largest
// backlog (at least 1) at the top. A single sample is drawn as a short
// flat line so that it is visible.
func newSparkline(samples []sample, capacity int) sparkline {
	if len(samples) == 0 {
		return sparkline{}
	}
	var peak int64
	for _, s := range samples {
		peak = max(peak, s.pending)
	}
	top := float64(max(peak, 1))
	step := float64(sparkWidth)
	if capacity > 1 {
		step = float64(sparkWidth) / float64(capacity-1)
	}
	y := func(p int64) float64 {
		return sparkHeight - sparkPad - float64(max(p, 0))/top*(sparkHeight-2*sparkPad)
	}
	var b strings.Builder
	point := func(x, y float64) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(x, 'f', 1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(y, 'f', 1, 64))
	}
	n := len(samples)
	if n == 1 {
		point(sparkWidth-step, y(samples[0].pending))
	}
	for i, s := range samples {
		point(sparkWidth-float64(n-1-i)*step, y(s.pending))
	}
	return sparkline{Points: b.String(), Max: peak}
}
