package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunSimRoundtrips_CombinedOverlapsItsHalves(t *testing.T) {
	res, err := runSimRoundtrips(lockstepAlgorithms)
	if err != nil {
		t.Fatal(err)
	}
	total, seq := map[algorithm]int64{}, map[algorithm]int64{}
	for _, r := range res {
		if len(r.steady) != roundtripSamples {
			t.Fatalf("%s: %d steady samples, want %d", r.algorithm, len(r.steady), roundtripSamples)
		}
		tp := r.typical()
		if tp.acquire.total() == 0 || tp.release.total() == 0 {
			t.Fatalf("%s: pair counted %+v", r.algorithm, tp)
		}
		total[r.algorithm], seq[r.algorithm] = tp.total(), tp.sequential()
	}
	// The legacy format is frozen (seed 000 listings 4–5): read main, write
	// shadow, read shadow, re-read main, write main, delete shadow; release
	// deletes main. One after the other.
	if total[algoLegacy] != 7 || seq[algoLegacy] != 7 {
		t.Errorf("legacy pair took %d requests in %d round trips, want 7 in 7", total[algoLegacy], seq[algoLegacy])
	}
	if seq[algoNew] != 3 {
		t.Errorf("new pair took %d round trips, want 3", seq[algoNew])
	}
	// Combined sends both halves' requests but the legacy round's first
	// read, and overlaps them (docs/algorithms.md, section 6.1): at most 7 round trips.
	if total[algoCombined] != total[algoNew]+total[algoLegacy]-1 {
		t.Errorf("combined %d requests, want new %d + legacy %d - 1", total[algoCombined], total[algoNew], total[algoLegacy])
	}
	if seq[algoCombined] > 7 {
		t.Errorf("combined pair took %d round trips, want at most 7", seq[algoCombined])
	}
	var buf bytes.Buffer
	printRoundtrips(&buf, res, false)
	for _, a := range lockstepAlgorithms {
		if !strings.Contains(buf.String(), string(a)) {
			t.Errorf("table lacks %s:\n%s", a, buf.String())
		}
	}
}
