package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

func smallConfig(processes ...int) seedConfig {
	return seedConfig{
		processes:  processes,
		k:          5,
		hold:       time.Millisecond,
		minLatency: 500 * time.Microsecond,
		maxLatency: 2 * time.Millisecond,
		poll:       10 * time.Millisecond,
		algorithms: []algorithm{algoNew, algoLegacy, algoCombined},
		seed:       1, // the default
	}
}

// simulate runs the experiment and prints its tables into a string.
func simulate(t *testing.T, cfg seedConfig) ([]run, string) {
	t.Helper()
	runs, err := runSimSeed(cfg)
	if err != nil {
		t.Fatalf("runSimSeed: %v", err)
	}
	var buf bytes.Buffer
	printSeedTables(&buf, cfg, runs, "virtual")
	return runs, buf.String()
}

func TestRunSeed_EveryRunHasProcessesTimesKNonNegativeWaits(t *testing.T) {
	cfg := smallConfig(1, 3)
	runs, _ := simulate(t, cfg)
	if want := len(cfg.algorithms) * len(cfg.processes); len(runs) != want {
		t.Fatalf("%d runs, want %d", len(runs), want)
	}
	for _, r := range runs {
		if len(r.procs) != r.processes {
			t.Fatalf("%s/%d: results of %d processes", r.algorithm, r.processes, len(r.procs))
		}
		for i, p := range r.procs {
			if len(p.Waits) != cfg.k || len(p.At) != cfg.k || len(p.Released) != cfg.k {
				t.Errorf("%s/%d: process %d made %d acquisitions (%d moments, %d releases), want %d",
					r.algorithm, r.processes, i, len(p.Waits), len(p.At), len(p.Released), cfg.k)
			}
			for j, d := range p.Waits {
				if d < 0 || p.At[j] < d || p.Released[j] < p.At[j] {
					t.Errorf("%s/%d: process %d acquisition %d waited %v, done at %v, released at %v",
						r.algorithm, r.processes, i, j, d, p.At[j], p.Released[j])
				}
			}
			// Every Lock makes at least one request, every Unlock exactly
			// as many as its algorithm's release needs.
			if p.Requests.Acquire < int64(cfg.k) || p.Requests.Release < int64(cfg.k) {
				t.Errorf("%s/%d: process %d counted %+v for %d acquisitions", r.algorithm, r.processes, i, p.Requests, cfg.k)
			}
		}
		if r.elapsed <= 0 {
			t.Errorf("%s/%d: ran %v of virtual time", r.algorithm, r.processes, r.elapsed)
		}
	}
}

func TestPrintSeedTables_PrintsBothTablesAndDetails(t *testing.T) {
	cfg := smallConfig(1, 3)
	runs, out := simulate(t, cfg)
	for _, want := range []string{
		"Table 1: mean acquisition wait (5 acquisitions per process)",
		"Table 2: max acquisition wait (5 acquisitions per process)",
		"Details",
		"algorithm  processes  acquisitions",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Each table has a header naming the algorithms and one row per process
	// count with a figure per algorithm.
	for _, title := range []string{"Table 1", "Table 2"} {
		table := section(out, title)
		lines := strings.Split(strings.TrimSpace(table), "\n")
		if len(lines) != 2+len(cfg.processes) {
			t.Fatalf("%s has %d lines, want %d:\n%s", title, len(lines), 2+len(cfg.processes), table)
		}
		if f := strings.Fields(lines[1]); len(f) != 4 || f[0] != "processes" || f[1] != "new" || f[2] != "legacy" || f[3] != "combined" {
			t.Errorf("%s header %q", title, lines[1])
		}
		for i, p := range cfg.processes {
			f := strings.Fields(lines[2+i])
			if len(f) != 1+2*len(cfg.algorithms) || f[0] != fmt.Sprint(p) {
				t.Errorf("%s row %q, want %d and a figure in ms per algorithm", title, lines[2+i], p)
			}
		}
	}
	details := strings.Split(strings.TrimSpace(section(out, "Details")), "\n")
	if len(details) != 2+len(runs) {
		t.Fatalf("details have %d lines, want %d", len(details), 2+len(runs))
	}
	for i, r := range runs {
		f := strings.Fields(details[2+i])
		if f[0] != string(r.algorithm) || f[1] != fmt.Sprint(r.processes) || f[2] != fmt.Sprint(r.processes*cfg.k) {
			t.Errorf("details row %q, want %s with %d processes and %d acquisitions", details[2+i], r.algorithm, r.processes, r.processes*cfg.k)
		}
	}
}

// section returns out from the line starting with title to the next blank line.
func section(out, title string) string {
	i := strings.Index(out, title)
	if i < 0 {
		return ""
	}
	s := out[i:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j]
	}
	return s
}

func TestRunSeed_SameSeedGivesIdenticalOutputWithOneProcess(t *testing.T) {
	cfg := smallConfig(1)
	cfg.k = 20
	_, first := simulate(t, cfg)
	_, second := simulate(t, cfg)
	if first != second {
		t.Fatalf("two runs with seed %d differ:\n%s\n---\n%s", cfg.seed, first, second)
	}
}

func TestRunSeed_SameSeedGivesIdenticalOutputWithSeveralProcesses(t *testing.T) {
	// Several processes draw request latencies from one shared random
	// source; runSimOne starts them one at a time (a gate, then a sleep of i+1
	// µs) so the order of those draws, and so the whole run, follows the seed.
	cfg := smallConfig(3, 5)
	cfg.k = 20
	_, want := simulate(t, cfg)
	for range 10 {
		if _, got := simulate(t, cfg); got != want {
			t.Fatalf("two runs with seed %d differ:\n%s\n---\n%s", cfg.seed, want, got)
		}
	}
}

func TestRun1_RefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"zero k", []string{"-k", "0"}},
		{"negative k", []string{"-k", "-3"}},
		{"zero processes", []string{"-k", "1", "-processes", "1,0"}},
		{"negative processes", []string{"-k", "1", "-processes", "-2"}},
		{"non-numeric processes", []string{"-k", "1", "-processes", "1,three"}},
		{"empty process list", []string{"-k", "1", "-processes", ""}},
		{"unknown algorithm", []string{"-k", "1", "-algorithms", "new,fast"}},
		{"peer algorithm on the sim", []string{"-k", "1", "-algorithms", "lwt"}},
		{"unknown backend", []string{"-k", "1", "-backend", "mongo"}},
		{"cassandra without hosts", []string{"-k", "1", "-backend", "cassandra"}},
		{"hosts on the sim", []string{"-k", "1", "-hosts", "127.0.0.1"}},
		{"peers on the sim", []string{"-scenario", "peers"}},
		{"zero tombstone acquisitions", []string{"-scenario", "tombstones", "-n", "0"}},
		{"zero poll", []string{"-k", "1", "-poll", "0s"}},
		{"stray argument", []string{"-k", "1", "extra"}},
		{"unknown scenario", []string{"-k", "1", "-scenario", "chaos"}},
		{"inverted latency bounds", []string{"-k", "1", "-min-latency", "2ms", "-max-latency", "1ms"}},
		{"negative latency", []string{"-k", "1", "-min-latency", "-1ms"}},
		{"negative idle holders", []string{"-scenario", "manager", "-perf", "2", "-idle", "-1"}},
		{"too many idle holders", []string{"-scenario", "manager", "-perf", "2", "-idle", "10001"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run1(tc.args)
			if err == nil {
				t.Fatalf("run1(%q) succeeded", tc.args)
			}
		})
	}
}

// With -fencing every acquisition of every algorithm draws its token from
// the global time service: one read and one write of its cell more per
// uncontended acquisition, and the release unchanged.
func TestRunSeed_FencingDrawsOneTokenPerAcquisition(t *testing.T) {
	plain, fenced := smallConfig(1), smallConfig(1)
	fenced.fencing = true
	p, _ := simulate(t, plain)
	f, out := simulate(t, fenced)
	for i := range p {
		pr, fr := p[i].requests(), f[i].requests()
		if fr.Acquire != pr.Acquire+2*int64(fenced.k) || fr.Release != pr.Release {
			t.Errorf("%s: fenced %+v, plain %+v: want 2 more requests per acquisition, the same releases", p[i].algorithm, fr, pr)
		}
	}
	if !strings.Contains(out, "Table 1") {
		t.Errorf("no table printed:\n%s", out)
	}
}

// A finished cell is reported on one line with its table figures, which
// agree with the run's summary.
func TestPrintSeedCell_ReportsTheCellsFigures(t *testing.T) {
	runs, _ := simulate(t, smallConfig(3))
	for _, r := range runs {
		var b strings.Builder
		printSeedCell(&b, r)
		s := summarize(r)
		line := b.String()
		for _, want := range []string{
			fmt.Sprintf(": %s, %d processes, %d acquisitions in ", r.algorithm, r.processes, s.n),
			"mean " + ms(s.mean), "p99 " + ms(s.p99), "max " + ms(s.max), fmt.Sprintf("Jain %.3f", s.jain),
		} {
			if !strings.Contains(line, want) {
				t.Errorf("cell line lacks %q: %s", want, line)
			}
		}
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Errorf("cell line is not one line: %q", line)
		}
	}
}
