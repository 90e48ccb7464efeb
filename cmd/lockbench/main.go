// Command lockbench runs the lock benchmarks. With no arguments it runs seed
// 000's experiment (§6, tables 1–2) on the embedded backend: P = 1, 3 and 5
// processes each take one lock id K times with the legacy and the new
// algorithm, and it prints the mean and maximum acquisition wait. With
// -scenario rollout it runs a fleet through every migration phase instead
// (legacy, combined, new and back, driven by migration.Controller) and prints
// per phase the acquisitions, waits and double grants (which must be 0).
//
// The embedded backend is the in-memory Cassandra model with a latency per
// request, on virtual time: the figures are a discrete-event simulation and
// do not depend on this machine's speed or load.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
)

func main() {
	if err := run1(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "lockbench:", err)
		os.Exit(2)
	}
}

func run1(args []string) error {
	fs := flag.NewFlagSet("lockbench", flag.ContinueOnError)
	var (
		procs   = fs.String("processes", "1,3,5", "comma-separated process counts")
		k       = fs.Int("k", 1000, "acquisitions per process (the seed used 5000)")
		hold    = fs.Duration("hold", time.Millisecond, "time each acquisition holds the lock")
		minLat  = fs.Duration("min-latency", 500*time.Microsecond, "least simulated latency of a store request")
		maxLat  = fs.Duration("max-latency", 2*time.Millisecond, "most simulated latency of a store request")
		modes   = fs.String("algorithms", "new,legacy", "comma-separated algorithms: legacy, new")
		seed    = fs.Uint64("seed", 1, "random seed of the simulation")
		backend = fs.String("backend", "sim", "backend: sim (embedded model on virtual time)")

		scenario  = fs.String("scenario", "seed", "scenario: seed (seed 000 §6 tables) or rollout (a fleet through every migration phase)")
		phaseHold = fs.Duration("phase-hold", 20*time.Second, "rollout: virtual time each phase is held")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *backend != "sim" {
		return fmt.Errorf("backend %q is not available yet (only sim)", *backend)
	}
	switch *scenario {
	case "seed":
	case "rollout":
		return runRolloutCommand(fs, *procs, *hold, *minLat, *maxLat, *seed, *phaseHold)
	default:
		return fmt.Errorf("unknown scenario %q (want seed or rollout)", *scenario)
	}
	cfg := seedConfig{k: *k, hold: *hold, minLatency: *minLat, maxLatency: *maxLat, seed: *seed}
	if cfg.k <= 0 {
		return fmt.Errorf("-k must be positive, got %d", cfg.k)
	}
	if cfg.minLatency < 0 || cfg.maxLatency < cfg.minLatency {
		return fmt.Errorf("latency bounds %v..%v are invalid", cfg.minLatency, cfg.maxLatency)
	}
	for _, s := range strings.Split(*procs, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || p <= 0 {
			return fmt.Errorf("bad process count %q", s)
		}
		cfg.processes = append(cfg.processes, p)
	}
	for _, s := range strings.Split(*modes, ",") {
		m, err := lockstep.ParseMode(s)
		if err != nil {
			return err
		}
		if m == lockstep.Combined {
			return fmt.Errorf("the combined algorithm is not benchmarked yet")
		}
		cfg.algorithms = append(cfg.algorithms, m)
	}
	started := time.Now()
	runs, err := runSeed(cfg)
	if err != nil {
		return err
	}
	fmt.Printf("lockbench: seed 000 §6 experiment on the embedded model (virtual time; request latency %v–%v, hold %v, seed %d)\n\n",
		cfg.minLatency, cfg.maxLatency, cfg.hold, cfg.seed)
	printSeedTables(os.Stdout, cfg, runs)
	fmt.Printf("\n(simulated in %.1f s of real time)\n", time.Since(started).Seconds())
	return nil
}
