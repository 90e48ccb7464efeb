package propertytests

import (
	"math/rand/v2"
	"testing"
)

// randChooser makes the scheduler's choices from a seeded generator: the
// fast driver of benchmarks and determinism checks, without rapid.
type randChooser struct{ r *rand.Rand }

func (c randChooser) Choose(_ string, n int) int { return c.r.IntN(n) }

// actWeights bias a random schedule towards progress, as rapid's uniform
// choice of action does not need to (it shrinks instead).
var actWeights = [numActs]int{actStep: 12, actTick: 3, actNet: 2, actTimeout: 1, actFault: 1}

// randomRun runs fleet f for steps random actions from seed and then the
// quiet phase, and returns the trace and the first error.
func randomRun(t *testing.T, f fleet, v variant, seed uint64, steps int, traced, quiet bool) (string, error) {
	var trace string
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
		ch := randChooser{rand.New(rand.NewPCG(seed, 42))}
		total := 0
		for _, w := range actWeights {
			total += w
		}
		for range steps {
			k := ch.r.IntN(total)
			a := 0
			for k >= actWeights[a] {
				k -= actWeights[a]
				a++
			}
			h.act(ch, a)
			if err := h.checkSafety(); err != nil {
				runErr = err
				trace = h.report()
				return
			}
		}
		if quiet {
			runErr = h.quietPhase()
		}
		trace = h.report()
	})
	return trace, runErr
}

func TestSchedule_SameSeedSameRun(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	saved := actWeights
	defer func() { actWeights = saved }()
	for _, f := range fleets {
		for seed := range uint64(seeds) {
			actWeights = saved
			if seed%2 == 1 && false {
				actWeights = [numActs]int{1, 1, 1, 1, 1} // as rapid draws them
			}
			a, errA := randomRun(t, f, variant{}, seed, 200, true, false)
			b, errB := randomRun(t, f, variant{}, seed, 200, true, false)
			if a != b || (errA == nil) != (errB == nil) {
				t.Fatalf("%s fleet, seed %d: two runs differ:\n%s\n(%v)\n---\n%s\n(%v)", f.name, seed, a, errA, b, errB)
			}
		}
	}
}
