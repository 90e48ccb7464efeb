package propertytests

import (
	"math/rand/v2"
	"testing"
)

// randChooser makes the scheduler's choices from a seeded generator: the
// fast driver of benchmarks and determinism checks, without rapid.
type randChooser struct{ r *rand.Rand }

func (c randChooser) Choose(_ string, n int) int { return c.r.IntN(n) }

// randomRun runs fleet f for steps random actions from seed and then the
// quiet phase, and returns the trace, the script of the actions that took
// effect, and the first error.
func randomRun(t *testing.T, f fleet, v variant, seed uint64, steps int, traced, quiet bool) (string, script, error) {
	var trace string
	var sc script
	var runErr error
	synctestRun(t, func() {
		h, err := newHarness(f, v, traced)
		if err != nil {
			runErr = err
			return
		}
		defer func() {
			if err := h.close(); err != nil && runErr == nil {
				runErr = err
			}
		}()
		r := rand.New(rand.NewPCG(seed, 42))
		var made []int
		ch := recorder{randChooser{r}, &made}
		for range steps {
			a := actionSlots[r.IntN(len(actionSlots))]
			made = nil
			if h.act(ch, a) {
				sc = append(sc, action{a, made})
			}
			if err := h.checkSafety(); err != nil {
				runErr = err
				trace = h.report()
				return
			}
		}
		if quiet {
			if runErr = h.quietPhase(); runErr == nil {
				runErr = h.checkStateFreed()
			}
		}
		trace = h.report()
	})
	return trace, sc, runErr
}

func TestSchedule_SameSeedSameRun(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for _, f := range fleets {
		if f.shareFirst {
			// Two user goroutines of one process: when a grant wakes both
			// (one's Unlock passes the in-process turn to the other), they
			// run side by side until each blocks, and what one does after
			// its release (the harness's records, the Locker's per-id
			// bookkeeping) can interleave with the other's next steps in
			// an order the simulator does not choose. The same seed then
			// gives another run now and then (seen at seeds 0–31, with and
			// without -race, before and after the composition redesign).
			// Every run is still checked; only replay is not exact.
			t.Logf("%s: not checked (see the comment)", f.name)
			continue
		}
		for seed := range uint64(seeds) {
			a, _, errA := randomRun(t, f, variant{}, seed, 200, true, false)
			b, _, errB := randomRun(t, f, variant{}, seed, 200, true, false)
			if a != b || (errA == nil) != (errB == nil) {
				t.Fatalf("%s fleet, seed %d: two runs differ:\n%s\n(%v)\n---\n%s\n(%v)", f.name, seed, a, errA, b, errB)
			}
		}
	}
}
