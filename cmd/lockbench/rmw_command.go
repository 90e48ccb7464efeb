package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"
)

// rmwFlags are the rmw scenario's own settings.
type rmwFlags struct {
	workloads  string
	strategies string
	resources  int
	modify     time.Duration
	casCost    int
}

// rmwOps is the rmw scenario's default operations per user (-k).
const rmwOps = 50

// parseRMWList parses a comma-separated list of the names in allowed.
func parseRMWList[T ~string](flag, s string, allowed []T) ([]T, error) {
	var out []T
	for _, f := range splitList(s) {
		found := false
		for _, a := range allowed {
			if string(a) == f {
				out, found = append(out, a), true
			}
		}
		if !found {
			return nil, fmt.Errorf("-%s: %q is not one of %v", flag, f, allowed)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-%s is empty (want some of %v)", flag, allowed)
	}
	return out, nil
}

// runRMWCommand runs -scenario rmw.
func runRMWCommand(o *options) error {
	rf := o.rmw
	workloads, err := parseRMWList("workloads", rf.workloads, rmwWorkloads)
	if err != nil {
		return err
	}
	strategies, err := parseRMWList("strategies", rf.strategies, rmwStrategies)
	if err != nil {
		return err
	}
	users, err := o.processCounts()
	if err != nil {
		return err
	}
	ops := rmwOps
	if o.given("k") {
		ops = o.k
	}
	if ops <= 0 || rf.resources <= 0 || rf.modify <= 0 || rf.casCost <= 0 {
		return fmt.Errorf("-k, -resources, -modify and -cas-cost must be positive, got %d, %d, %v and %d", ops, rf.resources, rf.modify, rf.casCost)
	}

	where := fmt.Sprintf("the embedded model (virtual time; request latency %v–%v, a compare-and-set %d of them; seed %d)",
		o.minLat, o.maxLat, rf.casCost, o.seed)
	cell := 0
	var newWorld func() (mgrWorld, register, error)
	if o.backend == "sim" {
		newWorld = func() (mgrWorld, register, error) {
			cell++
			w, err := newSimWorld(o.minLat, o.maxLat, o.poll, o.seed+uint64(cell))
			if err != nil {
				return nil, nil, err
			}
			return w, newSimRegister(w.clk, o.minLat, o.maxLat, rf.casCost, o.seed+uint64(cell)), nil
		}
	} else {
		if o.given("cas-cost") {
			return fmt.Errorf("-cas-cost is the sim backend's: on cassandra a compare-and-set is a real lightweight transaction")
		}
		ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
		defer cancel()
		version, session, store, err := openBench(ctx, o.real)
		if err != nil {
			return err
		}
		defer session.Close()
		if err := createRMWTable(ctx, session, o.real.keyspace); err != nil {
			return err
		}
		where = fmt.Sprintf("Cassandra %s at %s (keyspace %s, RF %d; reads and writes at QUORUM, the compare-and-set a lightweight transaction; users are goroutines of one OS process, each with a Locker of its own)",
			version, o.real.hosts, o.real.keyspace, o.real.replication)
		tag := runTag()
		reg := &cqlRegister{s: session, keyspace: o.real.keyspace}
		newWorld = func() (mgrWorld, register, error) {
			cell++
			return &realWorld{session: session, store: store, keyspace: o.real.keyspace, tag: tag, cell: cell, poll: o.poll}, reg, nil
		}
	}

	var cells []rmwCell
	for _, wl := range workloads {
		for _, n := range users {
			for _, s := range strategies {
				if s == rmwPessimisticRW && wl != rmwReadMix {
					continue // no downloads-only: the same operations as pessimistic
				}
				w, reg, err := newWorld()
				if err != nil {
					return err
				}
				c, err := runRMW(w, reg, wl, s, rmwParams{users: n, ops: ops, resources: rf.resources, modify: rf.modify, seed: o.seed})
				if err != nil {
					return fmt.Errorf("rmw %s, %s, %d users: %w", wl, s, n, err)
				}
				cells = append(cells, c)
			}
		}
	}
	fmt.Printf("lockbench: rmw scenario (seed 002's experiment) on %s;\n%d operations per user, modify %v on average, %d resources in the multi workload; pessimistic strategies lock with the queue lock (new)\n\n",
		where, ops, rf.modify, rf.resources)
	writeRMWTable(os.Stdout, cells)
	fmt.Println()
	writeRMWMeasures(os.Stdout, cells)
	for _, c := range cells {
		if err := c.checkCounters(); err != nil {
			return fmt.Errorf("rmw %s, %s, %d users: %w", c.workload, c.strategy, c.users, err)
		}
	}
	return nil
}

// writeRMWTable prints the cells: the paper's total time and failures, and
// beside them each operation's time, the lost-update check and the uploads
// whose outcome is unknown.
func writeRMWTable(out io.Writer, cells []rmwCell) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tusers\tstrategy\ttotal time\tfailures\tfailures/upload\tuploads\tdownloads\top mean\top p99\tlost updates\tunknown\t")
	for _, c := range cells {
		perUpload := "–"
		if c.uploads > 0 {
			perUpload = fmt.Sprintf("%.2f", float64(c.failures)/float64(c.uploads))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%s\t%d\t%d\t\n", c.workload, c.users, c.strategy,
			ms(c.total), c.failures, perUpload, c.uploads, c.downloads, ms(mean(c.ops)), ms(percentile(c.ops, 99)), c.lostUpdates, c.unknown)
	}
	_ = tw.Flush()
}
