package main

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"slices"
	"time"
)

// handoffs returns the sorted handoff latencies of a peers run: between
// consecutive acquisitions of the id, the time from the previous holder
// calling Unlock to the next Lock returning (summarizePeers's definition;
// overlapping pairs, which must not exist, are left out).
func handoffs(r peerRun) []time.Duration {
	var all []acquisition
	for _, p := range r.procs {
		for k := range p.At {
			rel := p.At[k]
			if k < len(p.Released) {
				rel = p.Released[k]
			}
			all = append(all, acquisition{at: p.At[k], released: rel})
		}
	}
	slices.SortFunc(all, func(a, b acquisition) int { return int(a.at - b.at) })
	var out []time.Duration
	for i := 1; i < len(all); i++ {
		if h := all[i].at - all[i-1].released; h > 0 {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// plotHandoffCDF draws the handoff-latency CDF of peers runs: one panel per
// contender count, one line per algorithm, x the handoff in ms on a log
// scale, y the fraction of handoffs at or below it. A lock whose line rises
// steeply and early hands over quickly and evenly; a long tail to the right
// is the waits its p99 hides.
func plotHandoffCDF(w io.Writer, title string, runs []peerRun) error {
	var counts []int
	var algos []algorithm
	for _, r := range runs {
		if !slices.Contains(counts, r.contenders) {
			counts = append(counts, r.contenders)
		}
		if !slices.Contains(algos, r.algorithm) {
			algos = append(algos, r.algorithm)
		}
	}
	img := image.NewPaletted(image.Rectangle{Max: plotSize(len(counts))}, plotPalette)
	draw.Draw(img, img.Bounds(), image.NewUniform(plotPalette[0]), image.Point{}, draw.Src)
	label(img, image.Pt(8, 15), title)
	for i, n := range counts {
		at := image.Pt(i%plotColumns*panelW, titleH+i/plotColumns*panelH)
		frame := image.Rectangle{Min: at, Max: at.Add(image.Pt(panelW, panelH))}
		var panel []peerRun
		for _, r := range runs {
			if r.contenders == n {
				panel = append(panel, r)
			}
		}
		drawCDFPanel(img, frame, fmt.Sprintf("contenders: %d", n), panel, algos)
	}
	return (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, img)
}

// drawCDFPanel draws one contender count's CDFs into frame; algos fixes
// each algorithm's colour across panels.
func drawCDFPanel(img *image.Paletted, frame image.Rectangle, title string, runs []peerRun, algos []algorithm) {
	plot := image.Rect(frame.Min.X+marginL, frame.Min.Y+marginT, frame.Max.X-marginR, frame.Max.Y-marginB)
	label(img, image.Pt(plot.Min.X, frame.Min.Y+14), title)
	lo, hi := 0.1, 1000.0 // ms: the x axis, decades
	for _, r := range runs {
		if h := handoffs(r); len(h) > 0 {
			hi = max(hi, math.Pow(10, math.Ceil(math.Log10(float64(h[len(h)-1])/float64(time.Millisecond)))))
		}
	}
	toPx := func(ms, frac float64) image.Point {
		x := (math.Log10(max(ms, lo)) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
		return image.Pt(plot.Min.X+int(math.Round(x*float64(plot.Dx()))), plot.Max.Y-int(math.Round(frac*float64(plot.Dy()))))
	}
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 0.9, 1} {
		p := toPx(lo, f)
		line(img, p, image.Pt(plot.Max.X, p.Y), gridIndex)
		s := fmt.Sprintf("%g", f)
		label(img, image.Pt(plot.Min.X-6-7*len(s), p.Y+4), s)
	}
	for d := lo; d <= hi*1.001; d *= 10 {
		p := toPx(d, 0)
		line(img, p, image.Pt(p.X, plot.Min.Y), gridIndex)
		s := tickLabel(d)
		label(img, image.Pt(p.X-7*len(s)/2, plot.Max.Y+15), s)
	}
	line(img, plot.Min, image.Pt(plot.Min.X, plot.Max.Y), inkIndex)
	line(img, image.Pt(plot.Min.X, plot.Max.Y), plot.Max, inkIndex)
	label(img, image.Pt(plot.Min.X+plot.Dx()/2-77, plot.Max.Y+32), "handoff (ms, log scale)")
	for li, r := range runs {
		ink := uint8(lineBase + slices.Index(algos, r.algorithm)%(len(plotPalette)-lineBase))
		h := handoffs(r)
		var prev image.Point
		for k, d := range h {
			next := toPx(float64(d)/float64(time.Millisecond), float64(k+1)/float64(len(h)))
			if k > 0 {
				thick(img, prev, next, ink)
			}
			prev = next
		}
		// Legend, top left inside the plot.
		lx, ly := plot.Min.X+8, plot.Min.Y+14+14*li
		line(img, image.Pt(lx, ly-4), image.Pt(lx+14, ly-4), ink)
		label(img, image.Pt(lx+18, ly), string(r.algorithm))
	}
}
