package propertytests

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestSchedules_Throughput measures how many random schedules of 3
// processes × 30 steps (90 scheduler actions, production code, no quiet
// phase) the simulator runs per second. A Go benchmark cannot host synctest
// bubbles (synctest.Test needs a *testing.T), so the measurement runs here,
// with testing.Benchmark, when LOCKSTEP_BENCH is set:
//
//	LOCKSTEP_BENCH=1 go test ./propertytests/ -run Throughput -v
func TestSchedules_Throughput(t *testing.T) {
	if os.Getenv("LOCKSTEP_BENCH") == "" {
		t.Skip("set LOCKSTEP_BENCH=1 to measure")
	}
	for _, f := range fleets {
		seed, failed := uint64(0), 0
		res := testing.Benchmark(func(b *testing.B) {
			for range b.N {
				seed++
				if _, _, err := randomRun(t, f, variant{}, seed, 3*30, false, false); err != nil {
					failed++ // a property failed: the schedule ends early, still counted
				}
			}
		})
		perSec := float64(res.N) / res.T.Seconds()
		// One line in the format of go test -bench, for benchstat.
		fmt.Printf("BenchmarkSchedules/%s\t%d\t%d ns/op\t%.0f schedules/s\n", f.name, res.N, res.NsPerOp(), perSec)
		t.Logf("%s fleet: %d schedules in %v: %.0f schedules/s (%v each); %d of %d runs failed a property",
			f.name, res.N, res.T.Round(time.Millisecond), perSec, res.T/time.Duration(max(res.N, 1)), failed, seed)
	}
}
