package propertytests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
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
		slots := actionSlots
		if v.weights != nil {
			slots = slotsOf(*v.weights)
		}
		for range steps {
			a := slots[r.IntN(len(slots))]
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
// the full event traces, the simulator's own decisions among them: the
// simulator runs one goroutine at a time and orders them by the program's
// own names for them (model/sim), so one seed must give one run, event for
// event. Each trace's digest must also match the one recorded in
// testdata/schedules.txt, so a run under -race or another GOMAXPROCS (CI
// runs both) is compared with this one too. A change of the algorithms
// that changes schedules on purpose records them anew:
//
//	LOCKSTEP_RECORD_SCHEDULES=1 go test ./propertytests -run SameSeed
func TestSchedule_SameSeedSameRun(t *testing.T) {
	seeds := scheduleSeeds
	if testing.Short() {
		seeds = 2
	}
	record := os.Getenv("LOCKSTEP_RECORD_SCHEDULES") == "1"
	recorded, err := loadSchedules()
	if err != nil && !record {
		t.Fatalf("%v (record them with LOCKSTEP_RECORD_SCHEDULES=1)", err)
	}
	var mu sync.Mutex
	got := map[string]string{}
	t.Cleanup(func() {
		if record && !t.Failed() {
			if err := writeSchedules(got); err != nil {
				t.Error(err)
			}
		}
	})
	for _, f := range fleets {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(seeds) {
				a, _, errA := randomRun(t, f, variant{}, seed, 200, true, true)
				b, _, errB := randomRun(t, f, variant{}, seed, 200, true, true)
				a += fmt.Sprintf("\n(%v)", errA)
				b += fmt.Sprintf("\n(%v)", errB)
				if a != b {
					t.Fatalf("seed %d: two runs differ from line %d on:\n%s", seed, firstDiff(a, b), sideBySide(a, b))
				}
				key, sum := fmt.Sprintf("%s %d", f.name, seed), digest(a)
				mu.Lock()
				got[key] = sum
				mu.Unlock()
				if want, ok := recorded[key]; !record && want != sum {
					t.Errorf("seed %d: the run is not the recorded one (digest %s, recorded %q): "+
						"a change of schedule on purpose is recorded with LOCKSTEP_RECORD_SCHEDULES=1; "+
						"otherwise something outside the program's choices (the Go runtime, -race) moved the run", seed, sum, want)
				} else if !ok && !record {
					t.Errorf("seed %d: no recorded digest (record with LOCKSTEP_RECORD_SCHEDULES=1)", seed)
				}
			}
		})
	}
}
