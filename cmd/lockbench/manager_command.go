package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
)

// managerFlags are the manager scenario's own settings.
type managerFlags struct {
	perfs   string // which performance scenarios: "1,2,3"
	clients string // N
	depths  string // L
	m       int    // locks per group (perf 1, 3)
	held    int    // locks the separate client holds (perf 2)
	idle    int    // Lockers holding one lock each under the ancestors (perf 2)
	shares  string // P (perf 3)
	access  string // accesses of the shared names (perf 3)
}

// The manager scenario's default grids. The sim ones keep all three tables
// under a minute of real time on a loaded 2-core machine (K = 3).
const (
	mgrSimClients  = "1,5,10,20,40"
	mgrRealClients = "1,8,40"
	mgrDepths      = "1,2,3,4,5"
	mgrShares      = "10,20,30,40,50,60,70,80,90,100"
	mgrShareDepths = "1,5" // perf 3 runs these of -depths
	mgrK           = 3
)

// intList parses a comma-separated list of positive integers.
func intList(name, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.Atoi(f)
		if err != nil || v < lo || v > hi {
			return nil, fmt.Errorf("-%s: %q is not a whole number from %d to %d", name, f, lo, hi)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-%s is empty", name)
	}
	return out, nil
}

// runManagerCommand runs -scenario manager.
func runManagerCommand(o *options) error {
	mf := o.manager
	perfs, err := intList("perf", mf.perfs, 1, 3)
	if err != nil {
		return err
	}
	clientsList := mgrSimClients
	if o.backend == "cassandra" {
		clientsList = mgrRealClients
	}
	if o.given("clients") {
		clientsList = mf.clients
	}
	clients, err := intList("clients", clientsList, 1, 1000)
	if err != nil {
		return err
	}
	depths, err := intList("depths", mf.depths, 1, 32)
	if err != nil {
		return err
	}
	shares, err := intList("shares", mf.shares, 1, 100)
	if err != nil {
		return err
	}
	var accesses []lockstep.Access
	for _, s := range splitList(mf.access) {
		a, err := lockstep.ParseAccess(s)
		if err != nil || (a != lockstep.Exclusive && a != lockstep.Shared) {
			return fmt.Errorf("-access: %q is not X or S", s)
		}
		accesses = append(accesses, a)
	}
	if len(accesses) == 0 {
		return fmt.Errorf("-access is empty (want X, S or X,S)")
	}
	k := mgrK
	if o.given("k") {
		k = o.k
	}
	if k <= 0 || mf.m <= 0 || mf.held <= 0 {
		return fmt.Errorf("-k, -m and -held must be positive, got %d, %d and %d", k, mf.m, mf.held)
	}
	if mf.idle < 0 || mf.idle > 10000 {
		return fmt.Errorf("-idle must be from 0 to 10000, got %d", mf.idle)
	}
	p := mgrParams{m: mf.m, k: k, held: mf.held, idle: mf.idle}

	allowed, list := append(lockstepAlgorithms[:len(lockstepAlgorithms):len(lockstepAlgorithms)], algoNewRanged), joinAlgorithms(lockstepAlgorithms)
	if o.backend == "cassandra" {
		allowed = []algorithm{algoNew, algoNewRanged, algoLegacy, algoCombined, algoLWT, algoLWTNaive}
		list = joinAlgorithms([]algorithm{algoNew, algoLWT})
	}
	if o.algorithms != "" {
		list = o.algorithms
	}
	algos, err := parseAlgorithms(list, allowed)
	if err != nil {
		return err
	}

	started := time.Now()
	where := fmt.Sprintf("the embedded model (virtual time; request latency %v–%v, seed %d)", o.minLat, o.maxLat, o.seed)
	cell := 0
	var newWorld func() (mgrWorld, error)
	if o.backend == "sim" {
		newWorld = func() (mgrWorld, error) {
			cell++
			return newSimWorld(o.minLat, o.maxLat, o.poll, o.seed+uint64(cell))
		}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
		defer cancel()
		version, session, store, err := openBench(ctx, o.real)
		if err != nil {
			return err
		}
		defer session.Close()
		where = fmt.Sprintf("Cassandra %s at %s (keyspace %s, RF %d; the clients are goroutines of one OS process, each with a Locker of its own, on one gocql session)",
			version, o.real.hosts, o.real.keyspace, o.real.replication)
		tag := runTag()
		newWorld = func() (mgrWorld, error) {
			cell++
			return &realWorld{session: session, store: store, keyspace: o.real.keyspace, tag: tag, cell: cell, poll: o.poll}, nil
		}
	}

	var cells []mgrCell
	do := func(what string, f func(w mgrWorld) (mgrCell, error)) error {
		w, err := newWorld()
		if err != nil {
			return err
		}
		c, err := f(w)
		if err != nil {
			return fmt.Errorf("manager %s: %w", what, err)
		}
		cells = append(cells, c)
		return nil
	}
	for _, perf := range perfs {
		for _, n := range clients {
			for _, d := range depths {
				for _, a := range algos {
					var err error
					switch perf {
					case 1:
						err = do(fmt.Sprintf("perf 1, %s, N=%d, L=%d", a, n, d), func(w mgrWorld) (mgrCell, error) {
							return runGroups(w, a, p, n, d, 0, lockstep.Exclusive)
						})
					case 2:
						err = do(fmt.Sprintf("perf 2, %s, N=%d, L=%d", a, n, d), func(w mgrWorld) (mgrCell, error) {
							return runBeside(w, a, p, n, d)
						})
					case 3:
						if !o.given("depths") && !strings.Contains(","+mgrShareDepths+",", fmt.Sprintf(",%d,", d)) {
							continue
						}
						for _, acc := range accesses {
							if acc != lockstep.Exclusive && (a == algoLegacy || a == algoCombined) && slices.Contains(accesses, lockstep.Exclusive) {
								continue // every legacy and combined member is exclusive: S rows would repeat the X rows
							}
							for _, share := range shares {
								if err == nil {
									err = do(fmt.Sprintf("perf 3, %s, N=%d, L=%d, P=%d, %v", a, n, d, share, acc), func(w mgrWorld) (mgrCell, error) {
										return runGroups(w, a, p, n, d, share, acc)
									})
								}
							}
						}
					}
					if err != nil {
						return err
					}
				}
			}
		}
	}

	fmt.Printf("lockbench: manager scenario (seed 003 §4.3) on %s;\nM = %d locks per group, %d held by the separate client (perf 2), K = %d rounds per client, poll %v;\n",
		where, p.m, p.held, p.k, o.poll)
	fmt.Printf("a lock of depth L is a path of L segments (Separator \"/\") whose ancestors every lock of the run shares.\n")
	if p.idle > 0 {
		fmt.Printf("Perf 2: %d more Lockers each hold one lock of depth L throughout (holders under the ancestors).\n", p.idle)
	}
	if o.backend == "sim" {
		fmt.Printf("Grid: N = %s, L = %s (perf 3: L = %s unless -depths is given), P = %s; rates and times are in virtual time.\n", clientsList, mf.depths, mgrShareDepths, mf.shares)
	}
	fmt.Println()
	printManager(os.Stdout, cells)
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	if o.pngPath != "" {
		short := fmt.Sprintf("model, virtual time, latency %v-%v", o.minLat, o.maxLat)
		if o.backend == "cassandra" {
			short = fmt.Sprintf("Cassandra at %s, RF %d", o.real.hosts, o.real.replication)
		}
		// The plot's font has ASCII only.
		short = strings.ReplaceAll(short, "µ", "u")
		if err := writeManagerPlots(o.pngPath, cells, short); err != nil {
			return err
		}
	}
	return nil
}

// writeManagerPlots writes the perf 1 and perf 3 plots next to path:
// path itself for perf 1 and path with "-overlap" before its extension for
// perf 3, each only if the run had that perf.
func writeManagerPlots(path string, cells []mgrCell, where string) error {
	ext := filepath.Ext(path)
	for _, pl := range []struct {
		perf int
		path string
		draw func(io.Writer) error
	}{
		{1, path, func(w io.Writer) error { return plotManagerDisjoint(w, cells, where) }},
		{3, strings.TrimSuffix(path, ext) + "-overlap" + ext, func(w io.Writer) error { return plotManagerOverlap(w, cells, where) }},
	} {
		if _, ok := findPerf(cells, pl.perf); !ok {
			continue // nothing to draw
		}
		f, err := os.Create(pl.path)
		if err != nil {
			return err
		}
		err = pl.draw(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", pl.path, err)
		}
	}
	return nil
}
