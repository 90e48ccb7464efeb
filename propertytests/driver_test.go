package propertytests

import (
	"fmt"
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
				trace = h.fullReport()
				return
			}
		}
		if quiet {
			if runErr = h.quietPhase(); runErr == nil {
				runErr = h.checkStateFreed()
			}
		}
		trace = h.fullReport()
	})
	return trace, sc, runErr
}

// TestSchedule_SameSeedSameRun runs seeds of every fleet twice and compares
// the full event traces: the simulator orders every yield by the program's
// own names for its goroutines (model/sim), so one seed must give one run,
// event for event, whatever the Go runtime does. CI runs it again under
// -race and with GOMAXPROCS=1 and 4.
func TestSchedule_SameSeedSameRun(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	for _, f := range fleets {
		t.Run(f.name, func(t *testing.T) {
			for seed := range uint64(seeds) {
				a, _, errA := randomRun(t, f, variant{}, seed, 200, true, true)
				b, _, errB := randomRun(t, f, variant{}, seed, 200, true, true)
				if a != b || fmt.Sprint(errA) != fmt.Sprint(errB) {
					t.Fatalf("seed %d: two runs differ:\n%s\n(%v)\n---\n%s\n(%v)", seed, a, errA, b, errB)
				}
			}
		})
	}
}
