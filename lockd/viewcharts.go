package lockd

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// The charts of the last minutes, drawn on the server as inline SVG (no
// script): one chart per measure, one line per mode that had events.

const (
	chartSeconds = 300 // the Recorder's window
	chartW       = 300.0
	chartH       = 60.0
)

// chartView is one chart; in JSON, each line's values, one a second from
// the second From (unix) on.
type chartView struct {
	Title string      `json:"title"`
	Unit  string      `json:"unit"`
	From  int64       `json:"from_unix"`
	Top   float64     `json:"max"` // the largest value of any line (0: none)
	Lines []chartLine `json:"lines"`
	Empty bool        `json:"-"`
	Max   string      `json:"-"` // the top of the y axis, with its unit
}

type chartLine struct {
	Mode   string    `json:"mode"` // also the line's CSS class
	Values []float64 `json:"values"`
	Points string    `json:"-"` // SVG polyline points
	Last   string    `json:"-"` // the last second's value, with its unit
}

// charts draws acquisitions/s, wait p50 and p99 and losses per second, per
// mode, over the last five minutes.
func (v *view) charts() []chartView {
	series := map[lockstep.Mode][]Point{}
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		series[m] = v.opts.Recorder.Series(m, chartSeconds)
	}
	measures := []struct {
		title string
		unit  string
		value func(Point) float64
	}{
		{"acquisitions/s", "/s", func(p Point) float64 { return float64(p.Acquired) }},
		{"wait p50", "ms", func(p Point) float64 { return float64(p.P50) / float64(time.Millisecond) }},
		{"wait p99", "ms", func(p Point) float64 { return float64(p.P99) / float64(time.Millisecond) }},
		{"losses/s", "/s", func(p Point) float64 { return float64(p.Losses) }},
	}
	var out []chartView
	for _, ms := range measures {
		c := chartView{Title: ms.title, Unit: ms.unit, Lines: []chartLine{}}
		top := 0.0
		for _, ps := range series {
			for _, p := range ps {
				top = max(top, ms.value(p))
			}
			if len(ps) > 0 {
				c.From = ps[0].Unix
			}
		}
		c.Top, c.Empty = top, top == 0
		if top == 0 {
			top = 1
		}
		c.Max = fmt.Sprintf("%.3g %s", top, ms.unit)
		for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
			ps := series[m]
			if !active(ps) {
				continue
			}
			var b strings.Builder
			values := make([]float64, len(ps))
			for i, p := range ps {
				values[i] = ms.value(p)
				x := chartW * float64(i) / float64(max(len(ps)-1, 1))
				y := chartH - chartH*ms.value(p)/top
				fmt.Fprintf(&b, "%.1f,%.1f ", x, y)
			}
			c.Lines = append(c.Lines, chartLine{Mode: m.String(), Values: values, Points: strings.TrimSpace(b.String()),
				Last: fmt.Sprintf("%.3g %s", ms.value(ps[len(ps)-1]), ms.unit)})
		}
		out = append(out, c)
	}
	return out
}

// active reports whether a mode had any event in the window.
func active(ps []Point) bool {
	for _, p := range ps {
		if p.Acquired > 0 || p.Losses > 0 {
			return true
		}
	}
	return false
}

// accessName is a wire access as the view shows it.
func accessName(a pb.Access) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(a.String(), "ACCESS_"), "_", " "))
}

var viewFuncs = template.FuncMap{
	"clock": func(t time.Time) string { return t.UTC().Format("15:04:05 MST") },
}
