package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Plot geometry, in pixels: one panel per run, in rows of plotColumns,
// under a title line.
const (
	panelW, panelH = 440, 340
	titleH         = 22
	marginL        = 62 // y tick labels
	marginR        = 14
	marginT        = 26 // panel title
	marginB        = 40 // x tick labels and axis name
)

// plotPalette is the PNG's palette: background, ink, grid, then one colour
// per process line (repeating beyond eight processes).
var plotPalette = color.Palette{
	color.White,
	color.Black,
	color.Gray{Y: 0xdd},
	color.RGBA{0x1f, 0x77, 0xb4, 0xff},
	color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff},
	color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff},
	color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff},
	color.RGBA{0x17, 0xbe, 0xcf, 0xff},
}

const (
	inkIndex  = 1
	gridIndex = 2
	lineBase  = 3
)

// plotColumns is how many panels a row of the plot holds.
const plotColumns = 3

// plotSize returns the size of the image plotMoments draws for n panels:
// rows of up to plotColumns panels under the title.
func plotSize(n int) image.Point {
	n = max(n, 1)
	rows := (n + plotColumns - 1) / plotColumns
	return image.Pt(min(n, plotColumns)*panelW, titleH+rows*panelH)
}

// plotMoments draws the seed's figures 1–2 for runs, one panel each: x is
// the attempt number, y the milliseconds since the run's start at which that
// acquisition completed, one line per process. A fair lock draws lines that
// climb together; an unfair one draws a staircase — one process's line runs
// ahead in a steep burst while the others stay flat. The image is a
// paletted PNG, small enough to commit.
func plotMoments(w io.Writer, title string, runs []run) error {
	img := image.NewPaletted(image.Rectangle{Max: plotSize(len(runs))}, plotPalette)
	draw.Draw(img, img.Bounds(), image.NewUniform(plotPalette[0]), image.Point{}, draw.Src)
	label(img, image.Pt(8, 15), title)
	for i, r := range runs {
		at := image.Pt(i%plotColumns*panelW, titleH+i/plotColumns*panelH)
		drawPanel(img, image.Rectangle{Min: at, Max: at.Add(image.Pt(panelW, panelH))}, r)
	}
	return (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, img)
}

// drawPanel draws one run's lines with axes and ticks into frame.
func drawPanel(img *image.Paletted, frame image.Rectangle, r run) {
	plot := image.Rect(frame.Min.X+marginL, frame.Min.Y+marginT, frame.Max.X-marginR, frame.Max.Y-marginB)
	label(img, image.Pt(plot.Min.X, frame.Min.Y+14), fmt.Sprintf("%s, %d processes", r.algorithm, r.processes))
	maxN, maxMS := 1, 1.0
	for _, p := range r.procs {
		maxN = max(maxN, len(p.At))
		if len(p.At) > 0 {
			maxMS = max(maxMS, float64(p.At[len(p.At)-1])/float64(time.Millisecond))
		}
	}
	toPx := axes(img, frame, plot, float64(maxN), maxMS, "attempt number", "ms")
	for i, p := range r.procs {
		ink := uint8(lineBase + i%(len(plotPalette)-lineBase))
		prev := toPx(0, 0)
		for k, at := range p.At {
			next := toPx(float64(k+1), float64(at)/float64(time.Millisecond))
			thick(img, prev, next, ink)
			prev = next
		}
		// Legend, top left inside the plot.
		lx, ly := plot.Min.X+8, plot.Min.Y+14+14*i
		line(img, image.Pt(lx, ly-4), image.Pt(lx+14, ly-4), ink)
		label(img, image.Pt(lx+18, ly), fmt.Sprintf("p%d", i))
	}
}

// axes draws, into plot within frame, the grid, ticks, axes and axis labels
// of data reaching maxX and maxY (rounded up to their last tick), and
// returns the mapping of data to pixels.
func axes(img *image.Paletted, frame, plot image.Rectangle, maxX, maxY float64, xLabel, yLabel string) func(x, y float64) image.Point {
	xTicks, yTicks := niceTicks(maxX), niceTicks(maxY)
	maxX, maxY = math.Max(maxX, xTicks[len(xTicks)-1]), math.Max(maxY, yTicks[len(yTicks)-1])
	toPx := func(x, y float64) image.Point {
		return image.Pt(plot.Min.X+int(math.Round(x/maxX*float64(plot.Dx()))),
			plot.Max.Y-int(math.Round(y/maxY*float64(plot.Dy()))))
	}
	for _, t := range yTicks {
		p := toPx(0, t)
		line(img, p, image.Pt(plot.Max.X, p.Y), gridIndex)
		s := tickLabel(t)
		label(img, image.Pt(plot.Min.X-6-7*len(s), p.Y+4), s)
	}
	for _, t := range xTicks {
		p := toPx(t, 0)
		line(img, p, image.Pt(p.X, plot.Min.Y), gridIndex)
		s := tickLabel(t)
		label(img, image.Pt(p.X-7*len(s)/2, plot.Max.Y+15), s)
	}
	line(img, plot.Min, image.Pt(plot.Min.X, plot.Max.Y), inkIndex)
	line(img, image.Pt(plot.Min.X, plot.Max.Y), plot.Max, inkIndex)
	label(img, image.Pt(plot.Min.X+plot.Dx()/2-7*len(xLabel)/2, plot.Max.Y+32), xLabel)
	label(img, image.Pt(frame.Min.X+4, plot.Min.Y-6), yLabel)
	return toPx
}

// niceTicks returns tick values 0, s, 2s, … up to the first at or above
// maxV, with a step s of 1, 2 or 5 times a power of ten giving about five
// ticks.
func niceTicks(maxV float64) []float64 {
	if maxV <= 0 {
		maxV = 1
	}
	raw := maxV / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for t := 0.0; ; t += step {
		out = append(out, t)
		if t >= maxV {
			return out
		}
	}
}

// tickLabel prints a tick value compactly: 1500 as "1500", 25000 as "25k".
func tickLabel(v float64) string {
	if v >= 10000 && math.Mod(v, 1000) == 0 {
		return fmt.Sprintf("%.0fk", v/1000)
	}
	return fmt.Sprintf("%g", v)
}

// label draws s with its baseline starting at p.
func label(img draw.Image, p image.Point, s string) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(plotPalette[inkIndex]), Face: basicfont.Face7x13,
		Dot: fixed.P(p.X, p.Y)}
	d.DrawString(s)
}

// thick draws a line two pixels wide.
func thick(img *image.Paletted, a, b image.Point, ink uint8) {
	line(img, a, b, ink)
	line(img, a.Add(image.Pt(0, 1)), b.Add(image.Pt(0, 1)), ink)
}

// line draws a one-pixel line from a to b (Bresenham).
func line(img *image.Paletted, a, b image.Point, ink uint8) {
	dx, dy := abs(b.X-a.X), -abs(b.Y-a.Y)
	sx, sy := sign(b.X-a.X), sign(b.Y-a.Y)
	e := dx + dy
	for {
		if (image.Point{a.X, a.Y}).In(img.Rect) {
			img.SetColorIndex(a.X, a.Y, ink)
		}
		if a == b {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			a.X += sx
		}
		if e2 <= dx {
			e += dx
			a.Y += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
