package main

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"slices"

	"github.com/lockstep-go/lockstep"
)

// lineSeries is one line of a panel: y against x.
type lineSeries struct {
	name   string
	xs, ys []float64
}

// linePanel is one panel of a line plot.
type linePanel struct {
	title, xLabel, yLabel string
	series                []lineSeries
}

// plotLines draws panels of lines, in rows of plotColumns, under title.
func plotLines(w io.Writer, title string, panels []linePanel) error {
	img := image.NewPaletted(image.Rectangle{Max: plotSize(len(panels))}, plotPalette)
	draw.Draw(img, img.Bounds(), image.NewUniform(plotPalette[0]), image.Point{}, draw.Src)
	label(img, image.Pt(8, 15), title)
	for i, p := range panels {
		at := image.Pt(i%plotColumns*panelW, titleH+i/plotColumns*panelH)
		drawLinePanel(img, image.Rectangle{Min: at, Max: at.Add(image.Pt(panelW, panelH))}, p)
	}
	return (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, img)
}

func drawLinePanel(img *image.Paletted, frame image.Rectangle, p linePanel) {
	plot := image.Rect(frame.Min.X+marginL, frame.Min.Y+marginT, frame.Max.X-marginR, frame.Max.Y-marginB)
	label(img, image.Pt(plot.Min.X, frame.Min.Y+14), p.title)
	maxX, maxY := 1.0, 1.0
	for _, s := range p.series {
		for i := range s.xs {
			maxX, maxY = math.Max(maxX, s.xs[i]), math.Max(maxY, s.ys[i])
		}
	}
	toPx := axes(img, frame, plot, maxX, maxY, p.xLabel, p.yLabel)
	for li, s := range p.series {
		ink := uint8(lineBase + li%(len(plotPalette)-lineBase))
		for i := range s.xs {
			q := toPx(s.xs[i], s.ys[i])
			if i > 0 {
				thick(img, toPx(s.xs[i-1], s.ys[i-1]), q, ink)
			}
			img.SetColorIndex(q.X, q.Y-1, ink) // a lone point still shows
		}
		lx, ly := plot.Max.X-90, plot.Min.Y+14+14*li
		line(img, image.Pt(lx, ly-4), image.Pt(lx+14, ly-4), ink)
		label(img, image.Pt(lx+18, ly), s.name)
	}
}

// plotManagerDisjoint draws perf 1: per algorithm, V_avg against N, one
// line per depth.
func plotManagerDisjoint(w io.Writer, cells []mgrCell, where string) error {
	var panels []linePanel
	for _, a := range cellAlgorithms(cells, 1) {
		p := linePanel{title: fmt.Sprintf("perf 1, %s", a), xLabel: "clients N", yLabel: "locks/s"}
		for _, d := range cellDepths(cells, 1) {
			s := lineSeries{name: fmt.Sprintf("L=%d", d)}
			for _, c := range cells {
				if c.perf == 1 && c.algorithm == a && c.depth == d {
					s.xs, s.ys = append(s.xs, float64(c.clients)), append(s.ys, c.rate)
				}
			}
			p.series = append(p.series, s)
		}
		panels = append(panels, p)
	}
	return plotLines(w, "lockbench manager, perf 1 (disjoint groups): V_avg per client; "+where, panels)
}

// plotManagerOverlap draws perf 3: per algorithm, access and depth, V_avg
// against P, one line per N.
func plotManagerOverlap(w io.Writer, cells []mgrCell, where string) error {
	var panels []linePanel
	for _, a := range cellAlgorithms(cells, 3) {
		for _, acc := range []lockstep.Access{lockstep.Exclusive, lockstep.Shared} {
			for _, d := range cellDepths(cells, 3) {
				p := linePanel{title: fmt.Sprintf("perf 3, %s, shared names %v, L=%d", a, acc, d), xLabel: "P, % shared", yLabel: "locks/s"}
				var ns []int
				for _, c := range cells {
					if c.perf == 3 && c.algorithm == a && c.access == acc && c.depth == d {
						ns = appendNew(ns, c.clients)
					}
				}
				for _, n := range ns {
					s := lineSeries{name: fmt.Sprintf("N=%d", n)}
					for _, c := range cells {
						if c.perf == 3 && c.algorithm == a && c.access == acc && c.depth == d && c.clients == n {
							s.xs, s.ys = append(s.xs, float64(c.share)), append(s.ys, c.rate)
						}
					}
					p.series = append(p.series, s)
				}
				if len(p.series) > 0 {
					panels = append(panels, p)
				}
			}
		}
	}
	return plotLines(w, "lockbench manager, perf 3 (overlapping groups): V_avg per client; "+where, panels)
}

func cellAlgorithms(cells []mgrCell, perf int) []algorithm {
	var out []algorithm
	for _, c := range cells {
		if c.perf == perf && !slices.Contains(out, c.algorithm) {
			out = append(out, c.algorithm)
		}
	}
	return out
}

func cellDepths(cells []mgrCell, perf int) []int {
	var out []int
	for _, c := range cells {
		if c.perf == perf {
			out = appendNew(out, c.depth)
		}
	}
	return out
}
