package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

type options struct {
	minutes  float64
	seed     uint64
	fleets   []string
	controls bool
	kinds    []nemesis.Kind
	ttl      time.Duration
	maxSkew  time.Duration
	workers  int
	dcs      int
	locks    int
	ipOffset int
	dir      string
	repo     string
	quiet    time.Duration
	sweep    []segment
	// managerShare is the fleets' share of lock-manager acquisitions.
	managerShare float64
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("robustness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Float64Var(&o.minutes, "minutes", 8, "total time of the segments (fleets and controls), in minutes")
	seed := fs.Int64("seed", -1, "seed of the nemesis schedules and the workers (-1: random, printed)")
	fleets := fs.String("fleets", "all", "fleets to run, comma-separated (all: "+strings.Join(fleetNames(2), ",")+"; dc-scopes with --dcs 2 only)")
	fs.BoolVar(&o.controls, "controls", true, "run the negative controls")
	kinds := fs.String("kinds", "all", "nemesis kinds, comma-separated: "+kindList())
	fs.DurationVar(&o.ttl, "ttl", 4*time.Second, "lock TTL of the fleets (whole seconds)")
	fs.DurationVar(&o.maxSkew, "max-server-skew", time.Second, "MaxServerSkew the workers assume; skew nemeses stay within it")
	fs.IntVar(&o.workers, "workers", 4, "worker processes per segment")
	fs.IntVar(&o.dcs, "dcs", 1, "data centres of the cluster: 1, or 2 (dc1 = nodes 1 and 2, dc2 = node 3; adds the dc-scopes fleet, the dc-partition nemesis and the ctl-dc-local-quorum control)")
	fs.IntVar(&o.locks, "locks", 8, "lock ids per fleet")
	fs.IntVar(&o.ipOffset, "ip-offset", 60, "the cluster's IP offset (nodes on 127.0.0.<offset+N>; 0 is refused)")
	fs.StringVar(&o.dir, "dir", "/tmp/lockstep-robustness", "state dir: cluster/ and out/ (histories, logs) below it")
	fs.StringVar(&o.repo, "repo", "", "repository root (default: found above the working directory)")
	fs.DurationVar(&o.quiet, "quiet", 0, "quiet time after the last heal of a segment, for liveness (0: the liveness bound 2×TTL+5s, plus 5s)")
	fs.Float64Var(&o.managerShare, "manager-share", 0.5, "share (0..1) of the fleets' acquisitions that take Shared locks, groups or hierarchical ids (rbworker --manager-share)")
	sweep := fs.String("skew-sweep", "", "instead of fleets and controls, the skew/TTL sweep: TTL:skew,skew;TTL:… (\"default\": "+DefaultSweep+")")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.minutes <= 0 {
		return o, fmt.Errorf("--minutes %v: give a positive number", o.minutes)
	}
	if *seed < 0 {
		o.seed = rand.Uint64() % 1_000_000
	} else {
		o.seed = uint64(*seed)
	}
	if o.dcs != 1 && o.dcs != 2 {
		return o, fmt.Errorf("--dcs %d: give 1 or 2", o.dcs)
	}
	if *fleets == "all" {
		*fleets = strings.Join(fleetNames(o.dcs), ",")
	}
	for _, f := range strings.Split(*fleets, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		seg, ok := fleetByName(f)
		if !ok {
			return o, fmt.Errorf("--fleets: unknown fleet %q; fleets: %s", f, strings.Join(fleetNames(2), ", "))
		}
		if seg.dcs && o.dcs != 2 {
			return o, fmt.Errorf("--fleets: fleet %s needs two data centres: add --dcs 2", f)
		}
		o.fleets = append(o.fleets, f)
	}
	var err error
	if o.kinds, err = nemesis.KindsFor(o.dcs, *kinds); err != nil {
		return o, fmt.Errorf("--kinds: %w", err)
	}
	if o.ttl < 2*time.Second || o.ttl%time.Second != 0 {
		return o, fmt.Errorf("--ttl %v: give whole seconds, at least 2s (the library checks its own minimum)", o.ttl)
	}
	if o.maxSkew < 0 {
		return o, fmt.Errorf("--max-server-skew %v must not be negative", o.maxSkew)
	}
	if o.workers < 2 || o.workers > 16 {
		return o, fmt.Errorf("--workers %d: give 2..16", o.workers)
	}
	if o.managerShare < 0 || o.managerShare > 1 {
		return o, fmt.Errorf("--manager-share %v: give a share from 0 to 1", o.managerShare)
	}
	if o.locks < 1 {
		return o, fmt.Errorf("--locks %d: give at least 1", o.locks)
	}
	if *sweep != "" {
		if *sweep == "default" {
			*sweep = DefaultSweep
		}
		if o.sweep, err = parseSweep(*sweep); err != nil {
			return o, err
		}
	}
	if o.quiet == 0 {
		o.quiet = livenessBound(o.ttl) + 5*time.Second
	}
	return o, nil
}

func kindList() string {
	var s []string
	for _, k := range append(append([]nemesis.Kind(nil), nemesis.AllKinds...), nemesis.LockdKinds...) {
		s = append(s, string(k))
	}
	return strings.Join(s, ",")
}
