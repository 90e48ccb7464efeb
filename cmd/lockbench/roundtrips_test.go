package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunSimRoundtrips_CombinedCostsNewPlusLegacy(t *testing.T) {
	res, err := runSimRoundtrips(lockstepAlgorithms)
	if err != nil {
		t.Fatal(err)
	}
	total := map[algorithm]int64{}
	for _, r := range res {
		if len(r.steady) != roundtripSamples {
			t.Fatalf("%s: %d steady samples, want %d", r.algorithm, len(r.steady), roundtripSamples)
		}
		tp := r.typical()
		if tp.acquire.total() == 0 || tp.release.total() == 0 {
			t.Fatalf("%s: pair counted %+v", r.algorithm, tp)
		}
		total[r.algorithm] = tp.total()
	}
	// The legacy format is frozen (seed 000 listings 4–5): read main, write
	// shadow, read shadow, re-read main, write main, delete shadow; release
	// deletes main.
	if total[algoLegacy] != 7 {
		t.Errorf("legacy pair took %d requests, want 7", total[algoLegacy])
	}
	// Combined takes the queue lock, then the legacy lock, one after the
	// other, and releases both.
	if total[algoCombined] != total[algoNew]+total[algoLegacy] {
		t.Errorf("combined %d requests, want new %d + legacy %d", total[algoCombined], total[algoNew], total[algoLegacy])
	}
	var buf bytes.Buffer
	printRoundtrips(&buf, res, false)
	for _, a := range lockstepAlgorithms {
		if !strings.Contains(buf.String(), string(a)) {
			t.Errorf("table lacks %s:\n%s", a, buf.String())
		}
	}
}
