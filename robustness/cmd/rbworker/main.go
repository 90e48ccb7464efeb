package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// config is the parsed command line.
type config struct {
	hosts           []string
	keyspace        string
	consistency     string
	process         string
	locks           int
	ttl             time.Duration
	maxServerSkew   time.Duration
	flagFile        string
	registerURL     string
	historyPath     string
	duration        time.Duration
	seed            uint64
	hold            time.Duration
	minHold         time.Duration
	lockTimeout     time.Duration
	requestTimeout  time.Duration
	fencing         bool
	evidence        queuelock.Evidence // the Lockers' Options.Evidence (--evidence)
	plant           string
	planted         planted // what plant switches on (plant.go), set by run
	bypassMigration bool
	managerShare    float64
	dc              string
	coordinator     string
	localShare      float64
	epochUnixNS     int64
	// lockdURLs, when set, make the worker take its locks through the
	// first lockd (lockd.go), in sessions of lockdSessionTTL, failing over
	// to the others; movesPath is where its moves are recorded.
	lockdURLs       []string
	lockdSessionTTL time.Duration
	movesPath       string
	// The lock-manager worker (lockman.go): its history of events, the
	// directory of its handovers, and its own planted defects.
	lockmanHistory string
	handoverDir    string
	lockmanPlant   string
	// Its place among the segment's lock-manager workers and their plan
	// of slots (slots.go).
	lockmanIndex, lockmanPeers int
	lockmanPlan                string
	// goroutines loop side by side as holders of their own on the one
	// Locker (goroutines.go); localHandoff is its LocalHandoff bound.
	goroutines   int
	localHandoff int
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("rbworker", flag.ContinueOnError)
	hosts := fs.String("hosts", "127.0.0.1", "comma-separated Cassandra contact points")
	fs.StringVar(&c.keyspace, "keyspace", "locks", "the lock keyspace (tables from package schema)")
	fs.StringVar(&c.consistency, "consistency", "quorum", "read and write consistency")
	fs.StringVar(&c.process, "process", "", "this worker's fleet-unique process id (required)")
	fs.IntVar(&c.locks, "locks", 8, "number of lock ids, lock-0 .. lock-N-1")
	fs.DurationVar(&c.ttl, "ttl", 4*time.Second, "lock TTL, whole seconds")
	fs.DurationVar(&c.maxServerSkew, "max-server-skew", time.Second, "MaxServerSkew the lockers assume")
	fs.StringVar(&c.flagFile, "flag-file", "", "file holding the mode (legacy, combined, new), read per acquisition (required)")
	fs.StringVar(&c.registerURL, "register", "", "the harness register's URL (required)")
	fs.StringVar(&c.historyPath, "history", "", "history output file, JSON lines (required)")
	fs.DurationVar(&c.duration, "duration", time.Minute, "how long to run")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the worker's choices")
	fs.DurationVar(&c.hold, "hold", time.Second, "longest pause inside a critical section")
	fs.DurationVar(&c.minHold, "min-hold", 0, "shortest pause inside a critical section (at most --hold)")
	fs.DurationVar(&c.lockTimeout, "lock-timeout", 0, "bound on one Lock call (0: 4×TTL)")
	fs.DurationVar(&c.requestTimeout, "request-timeout", 2*time.Second, "Cassandra request timeout")
	fs.BoolVar(&c.fencing, "fencing", true, "take fencing tokens (global time service)")
	evidence := fs.String("evidence", "off", "the Lockers' evidence-ordered fencing (queuelock.Options.Evidence): off, record or use (a combined Locker's queue half records at use); needs --fencing, and every process taking fenced locks of the ids to record")
	fs.StringVar(&c.plant, "plant", "", "planted defect to switch on, one of "+strings.Join(plantable, ", ")+" (the robustness suite's controls only)")
	fs.BoolVar(&c.bypassMigration, "bypass-migration", false, "take locks with the flag's algorithm directly, not through migration.Locker (negative control)")
	fs.Float64Var(&c.managerShare, "manager-share", 0, "share of acquisitions (0..1) that are the lock manager's: Shared locks, groups and hierarchical ids over lock-0, lock-1 and their children (ids use the separator \"/\")")
	fs.StringVar(&c.dc, "dc", "", "this worker's data centre: its session sends every request to that data centre's nodes (give its hosts in --hosts), and its records name it")
	fs.StringVar(&c.coordinator, "coordinator", "", "send every request to this one node (an address among the cluster's), the coordinator of all this worker's reads and writes; \"\": any node, round robin")
	fs.Float64Var(&c.localShare, "local-share", 0, "share of acquisitions (0..1) that take DC-local locks local-0 .. local-N-1 of --dc (a queue lock on a store WithLocalDC, LOCAL_QUORUM), recorded as local-N@<dc>")
	lockdURLs := fs.String("lockd", "", "take every lock through the lockd at this URL (lockd/client, one session at a time) instead of in-process; --hosts is then unused. Several, comma-separated: the first, then the lockds of the same cluster the session fails over to")
	fs.StringVar(&c.movesPath, "moves-history", "", "with several --lockd URLs: the file the session's fail-overs are recorded to, JSON lines (required then)")
	fs.DurationVar(&c.lockdSessionTTL, "lockd-session-ttl", 0, "TTL of the lockd sessions (0: lockd's default)")
	fs.StringVar(&c.lockmanHistory, "lockman-history", "", "run as a lock-manager worker instead: deadlock-prone units of work on dl-N and transfers of tx-N, events to this file (needs --handover-dir)")
	fs.StringVar(&c.handoverDir, "handover-dir", "", "directory the lock-manager workers of a run hand locks over through")
	fs.StringVar(&c.lockmanPlant, "lockman-plant", "", "the lock-manager worker's planted defects, comma-separated: "+strings.Join(lockmanPlants, ", ")+" (the robustness suite's controls only)")
	fs.IntVar(&c.lockmanIndex, "lockman-index", 0, "this lock-manager worker's place among the segment's, 0 .. --lockman-peers−1")
	fs.IntVar(&c.lockmanPeers, "lockman-peers", 1, "how many lock-manager workers the segment has (they meet in slots, see --lockman-plan)")
	fs.StringVar(&c.lockmanPlan, "lockman-plan", DefaultLockmanPlan, "the lock-manager workers' slots, one letter each, repeated: P pairs taking two ids in opposite orders, R a ring of three, T a transfer")
	fs.IntVar(&c.goroutines, "goroutines", 1, "goroutines taking locks side by side through the one Locker, each a holder of its own in the history (<process>/g<i>); more than 1 needs plain Locks only")
	fs.IntVar(&c.localHandoff, "local-handoff", 0, "the migration Locker's LocalHandoff: how many times in a row a store hold may pass between this worker's goroutines in memory (0: off; needs --goroutines 2 or more)")
	fs.Int64Var(&c.epochUnixNS, "epoch-unix-ns", 0, "the run's shared epoch, Unix ns (0: now)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.hosts = append(c.hosts, h)
		}
	}
	for _, u := range strings.Split(*lockdURLs, ",") {
		if u = strings.TrimSpace(u); u != "" {
			c.lockdURLs = append(c.lockdURLs, u)
		}
	}
	ev, err := parseEvidence(*evidence, c.fencing)
	if err != nil {
		return c, err
	}
	c.evidence = ev
	if c.lockTimeout == 0 {
		c.lockTimeout = 4 * c.ttl
	}
	switch {
	case c.process == "":
		return c, errors.New("--process is required: a fleet-unique id such as w1")
	case c.flagFile == "":
		return c, errors.New("--flag-file is required: a file holding legacy, combined or new")
	case c.registerURL == "":
		return c, errors.New("--register is required: the harness register's URL")
	case c.historyPath == "":
		return c, errors.New("--history is required: where to write this worker's operations")
	case len(c.hosts) == 0:
		return c, errors.New("--hosts is empty")
	case c.locks < 1:
		return c, fmt.Errorf("--locks %d: need at least 1", c.locks)
	case c.managerShare < 0 || c.managerShare > 1:
		return c, fmt.Errorf("--manager-share %v: give a share from 0 to 1", c.managerShare)
	case c.managerShare > 0 && c.bypassMigration:
		return c, errors.New("--manager-share needs migration.Locker: drop --bypass-migration or set --manager-share 0")
	case c.localShare < 0 || c.localShare > 1:
		return c, fmt.Errorf("--local-share %v: give a share from 0 to 1", c.localShare)
	case c.localShare > 0 && c.dc == "":
		return c, errors.New("--local-share needs --dc: a DC-local lock belongs to the worker's data centre")
	case c.localShare+c.managerShare > 1:
		return c, fmt.Errorf("--local-share %v and --manager-share %v add up to more than 1: lower one", c.localShare, c.managerShare)
	case len(c.lockdURLs) > 0 && (c.plant != "" && c.plant != lockdIgnoresLost || c.bypassMigration || c.localShare > 0 || c.dc != ""):
		return c, errors.New("--lockd takes every lock through lockd: drop --plant (but " + lockdIgnoresLost + "), --bypass-migration, --local-share and --dc (lockd follows the fleet's phase and serves global locks)")
	case len(c.lockdURLs) > 1 && c.movesPath == "":
		return c, errors.New("several --lockd URLs fail over: add --moves-history, the file the moves are recorded to")
	case len(c.lockdURLs) < 2 && c.movesPath != "":
		return c, errors.New("--moves-history records fail-overs: give --lockd several URLs, or drop it")
	case c.coordinator != "" && (c.dc != "" || len(c.lockdURLs) > 0):
		return c, errors.New("--coordinator picks the one node this worker talks to: drop --dc (which routes to a data centre's nodes) or --lockd (which talks to lockd, not Cassandra)")
	case c.lockdSessionTTL < 0:
		return c, fmt.Errorf("--lockd-session-ttl %v: give a positive TTL, or 0 for lockd's default", c.lockdSessionTTL)
	case c.minHold < 0 || c.minHold > c.hold:
		return c, fmt.Errorf("--min-hold %v: give 0 up to --hold %v", c.minHold, c.hold)
	case c.lockmanHistory != "" && c.handoverDir == "":
		return c, errors.New("--lockman-history needs --handover-dir: the directory the lock-manager workers hand locks over through")
	case c.lockmanHistory == "" && (c.handoverDir != "" || c.lockmanPlant != ""):
		return c, errors.New("--handover-dir and --lockman-plant are for a lock-manager worker: add --lockman-history")
	case c.lockmanPeers < 1 || c.lockmanIndex < 0 || c.lockmanIndex >= c.lockmanPeers:
		return c, fmt.Errorf("--lockman-index %d of --lockman-peers %d: give peers ≥ 1 and an index from 0 to peers−1", c.lockmanIndex, c.lockmanPeers)
	case c.goroutines < 1:
		return c, fmt.Errorf("--goroutines %d: give 1 or more", c.goroutines)
	case c.goroutines > 1 && (len(c.lockdURLs) > 0 || c.lockmanHistory != ""):
		return c, errors.New("--goroutines runs several holders on one in-process Locker: drop --lockd (a lockd worker holds one session) and --lockman-history (a lock-manager worker runs its own slots)")
	case c.goroutines > 1 && (c.managerShare > 0 || c.localShare > 0):
		return c, errors.New("--goroutines takes plain exclusive Locks only (the worker follows each lease by id, which shared holds of one id by two goroutines would blur): set --manager-share 0 and --local-share 0")
	case c.localHandoff < 0:
		return c, fmt.Errorf("--local-handoff %d: give 0 (off) or the most handoffs in a row, e.g. 2", c.localHandoff)
	case c.localHandoff > 0 && (c.bypassMigration || len(c.lockdURLs) > 0 || c.lockmanHistory != ""):
		return c, errors.New("--local-handoff is the in-process migration Locker's option: drop --bypass-migration, --lockd and --lockman-history")
	case c.plant == reuseToken && c.localHandoff == 0:
		return c, errors.New("--plant " + reuseToken + " is a defect of local handoff: add --local-handoff (and --goroutines 2 or more)")
	case c.localHandoff > 0 && c.goroutines < 2:
		return c, errors.New("--local-handoff passes a store hold between goroutines of this worker: add --goroutines 2 or more")
	case c.duration <= 0 || c.hold < 0 || c.lockTimeout <= 0 || c.requestTimeout <= 0:
		return c, errors.New("--duration, --lock-timeout and --request-timeout must be positive, --hold not negative")
	}
	if err := parseLockmanPlan(c.lockmanPlan); err != nil {
		return c, err
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "rbworker:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "rbworker:", err)
		os.Exit(1)
	}
}

// run sets everything up, works until the duration ends or ctx is
// cancelled, and closes everything.
func run(ctx context.Context, c config) (err error) {
	if c.planted, err = plant(c.plant); err != nil {
		return err
	}
	if c.planted.globalAtLocal && c.dc == "" {
		return fmt.Errorf("--plant %s needs --dc: the global locks go to that data centre's LOCAL_QUORUM", c.plant)
	}
	clk := history.NewClock(c.epochUnixNS)
	hw, err := history.Create(c.historyPath)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, hw.Close()) }()
	if c.lockmanHistory != "" {
		return runLockman(ctx, c, clk) // its --history stays empty
	}
	w, err := newWorker(c, clk, hw)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, w.close()) }()
	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	st, err := w.loops(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "rbworker %s: %s\n", c.process, st)
	if n := w.histErr.Load(); n > 0 {
		return fmt.Errorf("%d operations could not be written to %s: the history is incomplete", n, c.historyPath)
	}
	return nil
}
