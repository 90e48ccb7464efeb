package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/lockstep-go/lockstep/robustness/cluster"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// Exit codes.
const (
	exitOK       = 0
	exitViolated = 1
	exitUsage    = 2
	exitHarness  = 3
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// runner holds what one run started, so teardown can undo it.
type runner struct {
	o       options
	out     io.Writer
	cluster *cluster.Cluster
	bin     binaries
	outDir  string
	epoch   time.Time
	start   time.Time
	workers *workerSet
	events  int // nemesis events injected so far (also rotates kinds)
	// lockds are the running segment's lockds, if any (lockd.go);
	// lockdCounts the lockd nemeses injected so far, by kind.
	lockds      *lockdSet
	lockdCounts map[nemesis.Kind]int

	tornDown sync.Once
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.out, "robustness %6.1fs: %s\n", time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "robustness: %v\n", err)
		return exitUsage
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(stderr, "robustness: run as root: cgroups, nftables and signals to the nodes need it")
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	r := &runner{o: o, out: stdout, start: time.Now(), workers: &workerSet{}}
	c, err := cluster.New(cluster.Config{Repo: o.repo, IPOffset: o.ipOffset, Dir: filepath.Join(o.dir, "cluster"), Log: stderr, DCs: o.dcs})
	if err != nil {
		fmt.Fprintf(stderr, "robustness: %v\n", err)
		return exitUsage
	}
	r.cluster = c
	r.outDir = filepath.Join(o.dir, "out")
	defer r.teardown()

	segs := r.segments()
	if err := r.checkLengths(segs); err != nil {
		fmt.Fprintf(stderr, "robustness: %v\n", err)
		return exitUsage
	}
	r.logf("seed %d, %d segment(s) in %.1f minutes, TTL %v, MaxServerSkew %v, %d workers each; rerun with --seed %d",
		o.seed, len(segs), o.minutes, o.ttl, o.maxSkew, o.workers, o.seed)
	if err := r.prepare(ctx, pythonClients(segs)); err != nil {
		fmt.Fprintf(stderr, "robustness: %v\n", err)
		return exitHarness
	}
	res, err := r.runSegments(ctx, segs)
	r.teardown() // before the summary: its last line ends the output
	if err != nil {
		fmt.Fprintf(stderr, "robustness: %v\n", err)
		r.summary(res, err)
		return exitHarness
	}
	if o.sweep != nil {
		r.sweepTable(res)
	}
	if !r.summary(res, nil) {
		return exitViolated
	}
	return exitOK
}

// prepare installs nftables, builds the binaries (and the Python worker's
// venv, when a segment has Python clients), cleans a previous run's
// leftovers and starts the cluster.
func (r *runner) prepare(ctx context.Context, python bool) error {
	if err := nemesis.EnsureNft(ctx); err != nil {
		return err
	}
	if err := os.RemoveAll(r.outDir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(r.outDir, "bin"), 0o755); err != nil {
		return err
	}
	t := time.Now()
	bin, err := build(ctx, r.cluster.Config().Repo, filepath.Join(r.outDir, "bin"))
	if err != nil {
		return err
	}
	r.bin = bin
	r.logf("built rbworker, lockctl and lockd in %v", time.Since(t).Round(100*time.Millisecond))
	if python {
		t = time.Now()
		if err := buildPython(ctx, r.cluster.Config().Repo, filepath.Join(r.outDir, "bin"), &r.bin); err != nil {
			return err
		}
		r.logf("made the Python worker's venv (lockd/python installed) in %v", time.Since(t).Round(100*time.Millisecond))
	}
	t = time.Now()
	if err := r.cluster.Up(ctx); err != nil {
		return err
	}
	r.logf("cluster up in %v: %v", time.Since(t).Round(100*time.Millisecond), r.cluster.Hosts())
	if r.o.dcs == 2 {
		if err := r.cluster.MakeClientGroups(); err != nil {
			return err
		}
		for _, dc := range r.cluster.DCs() {
			r.logf("data centre %s: nodes %v", dc, r.cluster.NodesIn(dc))
		}
	}
	r.epoch = time.Now()
	return nil
}

// segments are the fleets asked for, then the controls.
func (r *runner) segments() []segment {
	if r.o.sweep != nil {
		return r.o.sweep
	}
	var s []segment
	for _, name := range r.o.fleets {
		f, _ := fleetByName(name)
		if !f.dcs {
			f.manager = r.o.managerShare
		}
		s = append(s, f)
	}
	if r.o.controls {
		for _, c := range controls {
			if !c.dcs || r.o.dcs == 2 {
				s = append(s, c)
			}
		}
	}
	return s
}

// checkLengths refuses a run whose segments leave less than 10 s of faults.
func (r *runner) checkLengths(segs []segment) error {
	if len(segs) == 0 {
		return fmt.Errorf("no fleet and no control to run")
	}
	lengths, windows := r.lengths(segs)
	for i, w := range windows {
		if w < 10*time.Second {
			return fmt.Errorf("--minutes %v leaves segment %s %v, %v for faults after the quiet time; give more minutes or fewer fleets",
				r.o.minutes, segs[i].name, lengths[i], w)
		}
	}
	return nil
}

// lengths divides --minutes over the segments by weight, and gives each
// its fault window: the length less the quiet time the liveness check
// needs (a control that must be caught is not checked for liveness).
func (r *runner) lengths(segs []segment) (length, window []time.Duration) {
	total := 0.0
	for _, s := range segs {
		if s.length == 0 { // a fixed length takes no share
			total += weight(s)
		}
	}
	if total == 0 {
		total = 1 // every segment has its own length
	}
	for _, s := range segs {
		l := time.Duration(r.o.minutes * float64(time.Minute) * weight(s) / total).Round(time.Second)
		if s.length > 0 {
			l = s.length
		}
		q := r.o.quiet
		if s.expect == expectViolation || s.expect == expectMeasure {
			q = 5 * time.Second
		}
		length, window = append(length, l), append(window, l-q)
	}
	return length, window
}

func weight(s segment) float64 {
	if s.weight == 0 {
		return 1
	}
	return s.weight
}
