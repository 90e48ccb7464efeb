package main

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"slices"
	"strconv"
	"testing"
	"time"
)

// syntheticRuns are two hand-made runs: a fair one and one where p0 takes
// every acquisition before p1 gets any.
func syntheticRuns() []run {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	fair := run{algorithm: algoNew, processes: 2, elapsed: 5 * time.Second, procs: []procResult{
		{Waits: ms(1, 2, 1), At: ms(10, 30, 50), Requests: requestCounts{Acquire: 12, Release: 3}},
		{Waits: ms(2, 2, 2), At: ms(20, 40, 60), Requests: requestCounts{Acquire: 12, Release: 3, Background: 4}},
	}}
	unfair := run{algorithm: algoLegacy, processes: 2, elapsed: 7 * time.Second, procs: []procResult{
		{Waits: ms(1, 1, 1), At: ms(10, 20, 30), Requests: requestCounts{Acquire: 18, Release: 3}},
		{Waits: ms(40, 1, 1), At: ms(40, 50, 60), Requests: requestCounts{Acquire: 18, Release: 3}},
	}}
	return []run{fair, unfair}
}

func TestWriteSeedCSV_OneRowPerRunUnderTheHeader(t *testing.T) {
	var buf bytes.Buffer
	if err := writeSeedCSV(&buf, syntheticRuns()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || !slices.Equal(rows[0], seedCSVHeader) {
		t.Fatalf("rows %q", rows)
	}
	col := func(row []string, name string) string { return row[slices.Index(seedCSVHeader, name)] }
	fair, unfair := rows[1], rows[2]
	for _, c := range []struct {
		row        []string
		name, want string
	}{
		{fair, "algorithm", "new"},
		{fair, "processes", "2"},
		{fair, "acquisitions", "6"},
		{fair, "max_ms", "2.000"},
		{fair, "jain", "0.9615"}, // alternating: the window ends at p0's third, before p1's third — 3 against 2

		{fair, "rt_per_acquire", "4.000"},
		{fair, "rt_per_release", "1.000"},
		{fair, "background_requests", "4"},
		{fair, "elapsed_s", "5.000"},
		{unfair, "max_ms", "40.000"},
		{unfair, "jain", "0.5000"}, // p0 made all 3 before p1's first
		{unfair, "rt_per_acquire", "6.000"},
	} {
		if got := col(c.row, c.name); got != c.want {
			t.Errorf("%s of %s = %q, want %q", c.name, c.row[0], got, c.want)
		}
	}
	if r, err := strconv.ParseFloat(col(unfair, "max_over_mean"), 64); err != nil || r < 5 {
		t.Errorf("unfair max/mean %q (%v), want a large ratio", col(unfair, "max_over_mean"), err)
	}
}

func TestPlotMoments_DecodesAsAPNGOfOnePanelPerRun(t *testing.T) {
	runs := syntheticRuns()
	var buf bytes.Buffer
	if err := plotMoments(&buf, "test", runs); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("the plot is not a PNG: %v", err)
	}
	if got, want := img.Bounds().Size(), plotSize(len(runs)); got != want {
		t.Fatalf("plot is %v, want %v", got, want)
	}
	// Each process's line colour appears.
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	for i := range 2 {
		r, g, bl, _ := plotPalette[lineBase+i].RGBA()
		if !seen[r>>8<<16|g>>8<<8|bl>>8] {
			t.Errorf("no pixel of process %d's colour", i)
		}
	}
}

func TestLargestRuns_KeepsTheMostProcessesPerAlgorithmInOrder(t *testing.T) {
	runs := []run{
		{algorithm: algoNew, processes: 1}, {algorithm: algoNew, processes: 5}, {algorithm: algoNew, processes: 3},
		{algorithm: algoLegacy, processes: 3}, {algorithm: algoCombined, processes: 1},
	}
	got := largestRuns(runs)
	if len(got) != 3 || got[0].algorithm != algoNew || got[0].processes != 5 ||
		got[1].algorithm != algoLegacy || got[1].processes != 3 || got[2].algorithm != algoCombined {
		t.Fatalf("largest runs %+v", got)
	}
}

func TestNiceTicks_CoverTheRangeInRoundSteps(t *testing.T) {
	for _, tc := range []struct {
		max  float64
		want []float64
	}{
		{1000, []float64{0, 200, 400, 600, 800, 1000}},
		{51837, []float64{0, 20000, 40000, 60000}},
		{7, []float64{0, 2, 4, 6, 8}},
	} {
		if got := niceTicks(tc.max); !slices.Equal(got, tc.want) {
			t.Errorf("niceTicks(%v) = %v, want %v", tc.max, got, tc.want)
		}
	}
}
