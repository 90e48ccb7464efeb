package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run1(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "lockbench:", err)
		os.Exit(2)
	}
}

// options are the command's flags.
type options struct {
	fs         *flag.FlagSet
	scenario   string
	backend    string
	procs      string
	k          int
	hold       time.Duration
	poll       time.Duration
	slowPoll   time.Duration
	minLat     time.Duration
	maxLat     time.Duration
	algorithms string
	seed       uint64
	csvPath    string
	pngPath    string
	phaseHold  time.Duration
	n          int
	period     time.Duration
	gcGrace    time.Duration
	duration   time.Duration
	real       realOptions
	worker     string
	ids        int
	scaleJob   string
	manager    managerFlags
	rmw        rmwFlags
	fencing    bool
	goroutines int           // cohort: goroutines per process
	localBound int           // cohort: new-local's Options.LocalHandoff
	retain     time.Duration // cohort: new-retain's Options.Retain
}

// given reports whether flag name was set on the command line.
func (o *options) given(name string) bool {
	found := false
	o.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// processCounts parses -processes.
func (o *options) processCounts() ([]int, error) {
	var out []int
	for _, s := range strings.Split(o.procs, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || p <= 0 {
			return nil, fmt.Errorf("bad process count %q", s)
		}
		out = append(out, p)
	}
	return out, nil
}

func parseFlags(args []string) (*options, error) {
	fs := flag.NewFlagSet("lockbench", flag.ContinueOnError)
	o := &options{fs: fs}
	fs.StringVar(&o.scenario, "scenario", "seed", "scenario: seed, roundtrips, tombstones, peers, scale, rollout, manager, deadlock, rmw, service or cohort")
	fs.StringVar(&o.backend, "backend", "sim", "backend: sim (embedded model on virtual time) or cassandra (-hosts)")
	fs.StringVar(&o.procs, "processes", "1,3,5", "comma-separated process counts")
	fs.IntVar(&o.k, "k", 1000, "seed: acquisitions per process (the seed used 5000)")
	fs.DurationVar(&o.hold, "hold", time.Millisecond, "time each acquisition holds the lock")
	fs.DurationVar(&o.poll, "poll", 10*time.Millisecond, "re-read interval of waiters (queue lock, LWT baseline)")
	fs.DurationVar(&o.minLat, "min-latency", 500*time.Microsecond, "sim: least simulated latency of a store request")
	fs.DurationVar(&o.maxLat, "max-latency", 2*time.Millisecond, "sim: most simulated latency of a store request")
	fs.StringVar(&o.algorithms, "algorithms", "", "comma-separated algorithms (default: new,legacy,combined; peers: new,legacy,lwt,etcd; manager also takes new-ranged, the new algorithm with Options.IntentionRange)")
	fs.Uint64Var(&o.seed, "seed", 1, "sim: random seed of the simulation")
	fs.BoolVar(&o.fencing, "fencing", false, "seed: every acquisition draws a fencing token from the global time service (seed 000 §5.4; its table in the bench keyspace, on -replication replicas); lwt and etcd draw none")
	fs.StringVar(&o.csvPath, "csv", "", "seed: also write the table as CSV to this file")
	fs.StringVar(&o.pngPath, "png", "", "seed: also plot acquisition moments per process (the seed's figures 1–2) to this PNG file; peers: the handoff-latency CDF per algorithm")
	fs.DurationVar(&o.phaseHold, "phase-hold", 20*time.Second, "rollout: virtual time each phase is held")
	fs.IntVar(&o.n, "n", 100000, "tombstones: sequential acquisitions of one id")
	fs.DurationVar(&o.period, "period", 5*time.Millisecond, "tombstones (sim): virtual time from one acquisition to the next")
	fs.DurationVar(&o.gcGrace, "gc-grace", defaultLegacyGCGrace, "tombstones, -algorithms legacy: gc_grace of the legacy tables (model; on cassandra the bench keyspace's tables are altered to it)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "peers, scale, cohort: how long each run acquires (scale and cohort on sim: virtual time)")
	fs.DurationVar(&o.slowPoll, "slow-poll", 0, "peers: the queue lock's SlowPoll (0: its default; equal to -poll: every waiter reads every poll)")
	fs.StringVar(&o.real.hosts, "hosts", "", "cassandra: comma-separated contact points")
	fs.StringVar(&o.real.keyspace, "keyspace", "lockbench", "cassandra: keyspace the bench creates and uses")
	fs.IntVar(&o.real.replication, "replication", 1, "cassandra: replication factor of the bench keyspace")
	fs.StringVar(&o.real.etcd, "etcd", "127.0.0.1:2379", "peers: etcd endpoints (comma-separated)")
	fs.StringVar(&o.real.etcdPeerDir, "etcdpeer", "", "etcd: directory of the etcd peer's module, built when a run includes etcd (default: "+etcdPeerRepoDir+" of the repository holding the working directory)")
	fs.StringVar(&o.real.lockdDir, "lockd", "", "service: directory of the lockd module, whose cmd/lockd is built and started (default: lockd of the repository holding the working directory)")
	fs.StringVar(&o.real.lockdFlags, "lockd-flags", "", "service: extra flags for the lockd under test, space-separated (e.g. \"--fencing=false --deadlock-detection=false\")")
	fs.StringVar(&o.real.lockdPeerDir, "lockdpeer", "", "service: directory of the lockd peer's module (default: "+lockdPeerRepoDir+" of the repository)")
	fs.StringVar(&o.worker, "worker", "", "internal: run as a worker process with this JSON job")
	fs.IntVar(&o.ids, "ids", 1000, "scale: lock ids the processes share")
	fs.StringVar(&o.scaleJob, "scale-worker", "", "internal: run as a scale worker process with this JSON job")
	fs.StringVar(&o.manager.perfs, "perf", "1,2,3", "manager: which of seed 003's performance scenarios to run")
	fs.StringVar(&o.manager.clients, "clients", mgrSimClients, "manager: comma-separated client counts N (default on cassandra: "+mgrRealClients+")")
	fs.StringVar(&o.manager.depths, "depths", mgrDepths, "manager: comma-separated lock depths L (perf 3, unless given: "+mgrShareDepths+")")
	fs.IntVar(&o.manager.m, "m", 10, "manager: locks per group (perf 1 and 3)")
	fs.IntVar(&o.manager.held, "held", 100, "manager: locks the separate client holds (perf 2)")
	fs.IntVar(&o.manager.idle, "idle", 0, "manager: perf 2's holders under the ancestors: Lockers that each hold one lock of depth L throughout, besides the clients")
	fs.StringVar(&o.manager.shares, "shares", mgrShares, "manager: percentages P of shared names (perf 3)")
	fs.StringVar(&o.manager.access, "access", "X,S", "manager: accesses of the shared names (perf 3): X, S or X,S")
	fs.StringVar(&o.rmw.workloads, "workloads", "single,multi,read-mix", "rmw: seed 002's workloads: single, multi, read-mix")
	fs.StringVar(&o.rmw.strategies, "strategies", "pessimistic,pessimistic-rw,optimistic", "rmw: pessimistic (lock held throughout), pessimistic-rw (downloads shared), optimistic (compare-and-set at upload)")
	fs.IntVar(&o.rmw.resources, "resources", 10, "rmw: resources of the multi workload")
	fs.DurationVar(&o.rmw.modify, "modify", 5*time.Millisecond, "rmw: mean time of a modify (drawn from [modify/2, 3·modify/2]); think time before an operation and back-off after a refused upload are drawn from [0, modify]")
	fs.IntVar(&o.rmw.casCost, "cas-cost", 4, "rmw (sim): request latencies a compare-and-set takes (a Cassandra lightweight transaction is four Paxos round trips)")
	fs.IntVar(&o.goroutines, "goroutines", 5, "cohort: goroutines per process, all on the process's one Locker")
	fs.IntVar(&o.localBound, "local-handoff", 8, "cohort: new-local's queuelock.Options.LocalHandoff, the most local handoffs in a row")
	fs.DurationVar(&o.retain, "retain", 20*time.Millisecond, "cohort: new-retain's queuelock.Options.Retain (with -local-handoff), how long an unlocked lock is kept for the process's next Lock")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return o, nil
}

func run1(args []string) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	if o.worker != "" {
		return runWorker(o.worker, os.Stdin, os.Stdout)
	}
	if o.scaleJob != "" {
		return runScaleWorker(o.scaleJob, os.Stdin, os.Stdout)
	}
	switch o.backend {
	case "sim":
		if o.given("hosts") {
			return fmt.Errorf("-hosts needs -backend cassandra")
		}
	case "cassandra":
		if strings.TrimSpace(o.real.hosts) == "" {
			return fmt.Errorf("-backend cassandra needs -hosts")
		}
	default:
		return fmt.Errorf("unknown backend %q (want sim or cassandra)", o.backend)
	}
	if o.minLat < 0 || o.maxLat < o.minLat {
		return fmt.Errorf("latency bounds %v..%v are invalid", o.minLat, o.maxLat)
	}
	if o.hold < 0 || o.poll <= 0 {
		return fmt.Errorf("-hold must not be negative and -poll must be positive, got %v and %v", o.hold, o.poll)
	}
	if o.fencing && o.scenario != "seed" && o.scenario != "cohort" {
		return fmt.Errorf("-fencing is the seed and cohort scenarios' (-scenario seed or cohort)")
	}
	switch o.scenario {
	case "seed":
		return runSeedCommand(o)
	case "roundtrips":
		return runRoundtripsCommand(o)
	case "tombstones":
		return runTombstonesCommand(o)
	case "peers":
		return runPeersCommand(o)
	case "scale":
		return runScaleCommand(o)
	case "manager":
		return runManagerCommand(o)
	case "deadlock":
		return runDeadlockCommand(o)
	case "rmw":
		return runRMWCommand(o)
	case "service":
		return runServiceCommand(o)
	case "cohort":
		return runCohortCommand(o)
	case "rollout":
		if o.backend != "sim" {
			return fmt.Errorf("-scenario rollout runs on the sim backend only")
		}
		return runRolloutCommand(o.fs, o.procs, o.hold, o.minLat, o.maxLat, o.seed, o.phaseHold)
	}
	return fmt.Errorf("unknown scenario %q (want seed, roundtrips, tombstones, peers, scale, rollout, manager, deadlock, rmw, service or cohort)", o.scenario)
}
