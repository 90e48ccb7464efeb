package main

import (
	"bytes"
	"image/png"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const msD = time.Millisecond

func TestHandoffs_FromEachReleaseToTheNextAcquisitionSorted(t *testing.T) {
	r := peerRun{procs: []procResult{
		{At: []time.Duration{0, 20 * msD}, Released: []time.Duration{5 * msD, 25 * msD}},
		{At: []time.Duration{8 * msD, 40 * msD}, Released: []time.Duration{12 * msD, 41 * msD}},
	}}
	// 0–5, 8–12, 20–25, 40–41: handoffs 3, 8, 15 ms.
	assert.Equal(t, []time.Duration{3 * msD, 8 * msD, 15 * msD}, handoffs(r))
}

func TestHandoffs_LeavesOverlapsOut(t *testing.T) {
	r := peerRun{procs: []procResult{
		{At: []time.Duration{0}, Released: []time.Duration{10 * msD}},
		{At: []time.Duration{5 * msD}, Released: []time.Duration{12 * msD}}, // a double grant
	}}
	assert.Empty(t, handoffs(r))
}

func TestPlotHandoffCDF_OnePanelPerContenderCount(t *testing.T) {
	run := func(a algorithm, n int) peerRun {
		var p procResult
		for k := range 50 {
			at := time.Duration(k) * 10 * msD
			p.At = append(p.At, at)
			p.Released = append(p.Released, at+time.Duration(k%7+1)*msD/2)
		}
		return peerRun{algorithm: a, contenders: n, procs: []procResult{p}}
	}
	var buf bytes.Buffer
	require.NoError(t, plotHandoffCDF(&buf, "test", []peerRun{run(algoNew, 1), run(algoLWT, 1), run(algoNew, 5), run(algoLWT, 5)}))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	assert.Equal(t, plotSize(2), img.Bounds().Size())
	// Both algorithms' colours are drawn.
	seen := map[uint32]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			seen[r<<16^g<<8^b] = true
		}
	}
	for _, i := range []int{lineBase, lineBase + 1} {
		r, g, b, _ := plotPalette[i].RGBA()
		assert.True(t, seen[r<<16^g<<8^b], "colour %d drawn", i)
	}
}
