package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// runSeedCommand runs -scenario seed on the chosen backend and writes its
// table to stdout, and to -csv and -png if given.
func runSeedCommand(o *options) error {
	cfg := seedConfig{k: o.k, hold: o.hold, poll: o.poll, minLatency: o.minLat, maxLatency: o.maxLat, seed: o.seed, fencing: o.fencing}
	if cfg.k <= 0 {
		return fmt.Errorf("-k must be positive, got %d", cfg.k)
	}
	var err error
	if cfg.processes, err = o.processCounts(); err != nil {
		return err
	}
	allowed := lockstepAlgorithms
	if o.backend == "cassandra" {
		allowed = realAlgorithms
	}
	list := o.algorithms
	if list == "" {
		list = joinAlgorithms(lockstepAlgorithms)
	}
	if cfg.algorithms, err = parseAlgorithms(list, allowed); err != nil {
		return err
	}
	started := time.Now()
	var (
		runs  []run
		clock string
	)
	fenced := ""
	if cfg.fencing {
		fenced = "; every acquisition of new, legacy and combined draws a fencing token from the global time service"
	}
	if o.backend == "sim" {
		fmt.Printf("lockbench: seed 000 §6 experiment on the embedded model (virtual time; request latency %v–%v, hold %v, poll %v, seed %d%s)\n\n",
			cfg.minLatency, cfg.maxLatency, cfg.hold, cfg.poll, cfg.seed, fenced)
		runs, err = runSimSeed(cfg)
		clock = "virtual"
	} else {
		var version string
		cfg.cellDone = func(r run) { printSeedCell(os.Stderr, r) }
		runs, version, err = runRealSeed(o.real, cfg)
		fmt.Printf("lockbench: seed 000 §6 experiment on Cassandra %s at %s (separate OS processes; wall time; hold %v, poll %v; RF %d%s)\n\n",
			version, o.real.hosts, cfg.hold, cfg.poll, o.real.replication, fenced)
		clock = "wall"
	}
	if err != nil {
		return err
	}
	printSeedTables(os.Stdout, cfg, runs, clock)
	heading := "combined against new, same run"
	if o.backend == "sim" {
		heading += " (set for real nodes; judged here on the model's virtual time)"
	}
	printTargets(os.Stdout, heading, seedTargets(runs))
	if o.csvPath != "" {
		if err := writeFile(o.csvPath, func(f *os.File) error { return writeSeedCSV(f, runs) }); err != nil {
			return fmt.Errorf("writing -csv: %w", err)
		}
	}
	if o.pngPath != "" {
		title := fmt.Sprintf("acquisition moments per process (%s backend)", o.backend)
		if err := writeFile(o.pngPath, func(f *os.File) error { return plotMoments(f, title, largestRuns(runs)) }); err != nil {
			return fmt.Errorf("writing -png: %w", err)
		}
	}
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	return nil
}

// largestRuns returns, per algorithm in order, the run with the most
// processes: the panels of the plot.
func largestRuns(runs []run) []run {
	var out []run
	index := map[algorithm]int{}
	for _, r := range runs {
		i, ok := index[r.algorithm]
		switch {
		case !ok:
			index[r.algorithm] = len(out)
			out = append(out, r)
		case r.processes > out[i].processes:
			out[i] = r
		}
	}
	return out
}

// writeFile creates path, lets write fill it and closes it, reporting the
// first error.
func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// printSeedCell reports one finished run of the seed experiment on one
// line, with the figures of the tables' details row, as it ends: a run at
// the published size takes hours, and a cell ended is a cell measured even
// if a later one is stopped.
func printSeedCell(w io.Writer, r run) {
	s := summarize(r)
	fmt.Fprintf(w, "lockbench: seed cell done at %s: %s, %d processes, %d acquisitions in %.1f s: mean %s, p50 %s, p99 %s, max %s, max/mean %.1f, Jain %.3f\n",
		time.Now().Format(time.TimeOnly), r.algorithm, r.processes, s.n, r.elapsed.Seconds(), ms(s.mean), ms(s.p50), ms(s.p99), ms(s.max), s.ratio(), s.jain)
}
