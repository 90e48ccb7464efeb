package propertytests

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// defaultSweep is how many seeded schedules TestSweep runs per fleet by
// default (-short: a tenth); deepSweep under LOCKSTEP_DEEP=1, the count CI
// runs. LOCKSTEP_SCHEDULES overrides both.
const (
	defaultSweep = 30
	deepSweep    = 2000
)

// sweepActions is the length of a swept schedule's random phase: 3
// processes × 30 steps, before the quiet phase.
const sweepActions = 3 * 30

// A sweepPlan says which seeds TestSweep runs on each fleet: the corpus,
// seeds 0..corpus-1 (the same on every run: it finds regressions), then
// fresh seeds offset, offset+1, … (new on every commit in CI: they find
// what no earlier run reached).
type sweepPlan struct {
	n, corpus int    // schedules per fleet, of which the first corpus are 0..corpus-1
	offset    uint64 // first fresh seed
	origin    string // where the offset came from, for the log
	// replay, when set, runs only this seed of this fleet
	replayFleet string
	replaySeed  uint64
}

// sweepPlanFromEnv reads
//
//	LOCKSTEP_SCHEDULES=N         schedules per fleet (default 30, -short 3,
//	                             LOCKSTEP_DEEP=1: deepSweep)
//	LOCKSTEP_SWEEP_OFFSET=X      fresh seeds from X on: a decimal seed, a hex
//	                             commit id (its first 16 hex digits; CI passes
//	                             git rev-parse HEAD) or "time" (now, printed);
//	                             unset: the corpus alone, every run the same
//	LOCKSTEP_SWEEP_CORPUS=K      how many of the N are the corpus 0..K-1
//	                             (default N/2 with an offset, else N)
//	LOCKSTEP_SWEEP_SEED=F:S      replay seed S of fleet F alone, traced
func sweepPlanFromEnv(t *testing.T) sweepPlan {
	p := sweepPlan{n: defaultSweep}
	if testing.Short() {
		p.n /= 10
	}
	if os.Getenv("LOCKSTEP_DEEP") == "1" {
		p.n = deepSweep
	}
	if s := os.Getenv("LOCKSTEP_SCHEDULES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("LOCKSTEP_SCHEDULES=%q: want a positive count", s)
		}
		p.n = v
	}
	p.corpus = p.n
	if s := os.Getenv("LOCKSTEP_SWEEP_OFFSET"); s != "" {
		off, err := parseSweepOffset(s)
		if err != nil {
			t.Fatalf("LOCKSTEP_SWEEP_OFFSET=%q: %v", s, err)
		}
		p.offset, p.origin = off, s
		p.corpus = p.n / 2
	}
	if s := os.Getenv("LOCKSTEP_SWEEP_CORPUS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v > p.n {
			t.Fatalf("LOCKSTEP_SWEEP_CORPUS=%q: want 0..%d", s, p.n)
		}
		p.corpus = v
	}
	if p.corpus < p.n && p.offset < uint64(p.n) {
		p.offset += uint64(p.n) // fresh seeds never repeat the corpus
	}
	if s := os.Getenv("LOCKSTEP_SWEEP_SEED"); s != "" {
		i := strings.LastIndex(s, ":")
		seed, err := strconv.ParseUint(s[i+1:], 10, 64)
		if i < 0 || err != nil {
			t.Fatalf("LOCKSTEP_SWEEP_SEED=%q: want fleet:seed, e.g. new/wake:1471", s)
		}
		p.replayFleet, p.replaySeed = s[:i], seed
		known := false
		for _, f := range fleets {
			known = known || f.name == p.replayFleet
		}
		if !known {
			t.Fatalf("LOCKSTEP_SWEEP_SEED=%q: no fleet %q", s, p.replayFleet)
		}
	}
	return p
}

// parseSweepOffset reads LOCKSTEP_SWEEP_OFFSET: a decimal number, "time", or
// hex digits (a commit id: the first 16 of them).
func parseSweepOffset(s string) (uint64, error) {
	if s == "time" {
		return uint64(time.Now().UnixNano()), nil
	}
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		return v, nil
	}
	h := strings.TrimPrefix(s, "0x")
	if len(h) > 16 {
		h = h[:16]
	}
	v, err := strconv.ParseUint(h, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("want a decimal seed, a hex commit id or \"time\"")
	}
	return v, nil
}

// seeds returns fleet f's seeds: its share of the corpus, then of the fresh
// seeds (a fleet with sweepDivisor d runs one in d of each).
func (p sweepPlan) seeds(f fleet) []uint64 {
	if p.replayFleet != "" {
		return []uint64{p.replaySeed}
	}
	n, corpus := p.n, p.corpus
	if f.sweepDivisor > 1 {
		n, corpus = max(n/f.sweepDivisor, 1), corpus/f.sweepDivisor
	}
	out := make([]uint64, 0, n)
	for s := range uint64(corpus) {
		out = append(out, s)
	}
	for i := range uint64(n - corpus) {
		out = append(out, p.offset+i)
	}
	return out
}

// replayCommand is the command that runs seed of fleet alone again.
func replayCommand(fleet string, seed uint64) string {
	return fmt.Sprintf("LOCKSTEP_SWEEP_SEED='%s:%d' go test ./propertytests -run 'TestSweep$' -v", fleet, seed)
}

// TestSweep runs many seeded random schedules of every fleet — the random
// phase with faults, then the quiet phase — on the weighted action choice of
// randomRun, beside rapid's checks: cheaper per schedule (no shrinking
// bookkeeping), so a CI run explores far more of them. The seeds are a fixed
// corpus plus, when LOCKSTEP_SWEEP_OFFSET is set (CI sets it from the
// commit), fresh ones (sweepPlanFromEnv). A failure is minimized, its script
// printed for testdata/regressions, with the command that replays its seed.
//
//	LOCKSTEP_SCHEDULES=100000 go test ./propertytests -run Sweep -v
//	LOCKSTEP_SWEEP_OFFSET=time go test ./propertytests -run Sweep -v
func TestSweep(t *testing.T) {
	p := sweepPlanFromEnv(t)
	switch {
	case p.replayFleet != "":
		t.Logf("replaying seed %d of fleet %s", p.replaySeed, p.replayFleet)
	case p.corpus < p.n:
		t.Logf("%d schedules per fleet: corpus seeds 0..%d, fresh seeds from %d (LOCKSTEP_SWEEP_OFFSET=%s)", p.n, p.corpus-1, p.offset, p.origin)
	default:
		t.Logf("%d schedules per fleet: corpus seeds 0..%d only (set LOCKSTEP_SWEEP_OFFSET for fresh ones)", p.n, p.n-1)
	}
	for _, f := range fleets {
		if p.replayFleet != "" && f.name != p.replayFleet {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			seeds := p.seeds(f)
			start := time.Now()
			var failed atomic.Int64
			for _, seed := range seeds {
				trace, sc, err := randomRun(t, f, variant{}, seed, sweepActions, p.replayFleet != "", true)
				if err == nil {
					continue
				}
				failed.Add(1)
				if p.replayFleet != "" {
					t.Logf("trace of seed %d:\n%s", seed, trace)
				}
				want, _, _ := strings.Cut(err.Error(), ":")
				small, merr := minimize(t, f, variant{}, sc, want+":")
				t.Errorf("seed %d: %v\nminimized to %d actions: %v\n%v\nreplay: %s", seed, firstLine(err), len(small), small, merr, replayCommand(f.name, seed))
				if failed.Load() >= 3 {
					t.FailNow()
				}
			}
			el := time.Since(start)
			t.Logf("%s: %d schedules of %d actions + quiet phase in %v: %.0f schedules/s", f.name, len(seeds), sweepActions, el.Round(time.Millisecond), float64(len(seeds))/el.Seconds())
		})
	}
}
