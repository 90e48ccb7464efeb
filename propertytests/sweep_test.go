package propertytests

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// defaultSweep is how many seeded schedules TestSweep runs per fleet by
// default (-short: a tenth). CI sets LOCKSTEP_SCHEDULES to run more.
const defaultSweep = 300

// sweepActions is the length of a swept schedule's random phase: 3
// processes × 30 steps, before the quiet phase.
const sweepActions = 3 * 30

// TestSweep runs many seeded random schedules of every fleet — the random
// phase with faults, then the quiet phase — on the weighted action choice of
// randomRun, beside rapid's checks: cheaper per schedule (no shrinking
// bookkeeping), so a CI run explores far more of them. A failure is
// minimized, and its script printed for testdata/regressions.
//
//	LOCKSTEP_SCHEDULES=100000 go test ./propertytests -run Sweep -v
func TestSweep(t *testing.T) {
	n := defaultSweep
	if testing.Short() {
		n /= 10
	}
	if s := os.Getenv("LOCKSTEP_SCHEDULES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("LOCKSTEP_SCHEDULES=%q: want a positive count", s)
		}
		n = v
	}
	for _, f := range fleets {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			n := n
			if f.sweepDivisor > 1 {
				n = max(n/f.sweepDivisor, 1)
			}
			start := time.Now()
			var failed atomic.Int64
			for seed := range uint64(n) {
				_, sc, err := randomRun(t, f, variant{}, seed, sweepActions, false, true)
				if err == nil {
					continue
				}
				failed.Add(1)
				want, _, _ := strings.Cut(err.Error(), ":")
				small, merr := minimize(t, f, variant{}, sc, want+":")
				t.Errorf("seed %d: %v\nminimized to %d actions: %v\n%v", seed, firstLine(err), len(small), small, merr)
				if failed.Load() >= 3 {
					t.FailNow()
				}
			}
			el := time.Since(start)
			t.Logf("%d schedules of %d actions + quiet phase in %v: %.0f schedules/s", n, sweepActions, el.Round(time.Millisecond), float64(n)/el.Seconds())
		})
	}
}
