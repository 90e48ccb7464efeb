package main

import (
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// expect is what a segment must show.
type expect int

const (
	expectClean       expect = iota // no violation
	expectViolation                 // at least one violation (a control)
	expectCounterLoss               // lost updates on the counter only
	expectMeasure                   // anything: the skew sweep records what it finds
)

// segment is one fleet or control: its workers' modes, the phase the
// fleet starts in, and how it deviates from a plain fleet.
type segment struct {
	name    string
	modes   []string // per worker, cycled over the workers
	phase   string   // initial migration phase
	rollout bool     // move the phase while it runs
	bypass  bool     // workers bypass migration.Locker (old binaries)
	plant   string   // planted defect (rbworker --plant)
	ttl     time.Duration
	locks   int // 0: options.locks
	kinds   []nemesis.Kind
	// events, when set, replaces the seeded schedule (controls).
	events  func(r *runner, seg *segment, window time.Duration) []nemesis.Event
	expect  expect
	control bool
	weight  float64       // share of --minutes relative to a fleet's 1 (0: 1)
	skew    time.Duration // node 2's clock ahead by this for the whole segment
	length  time.Duration // fixed length, instead of a share of --minutes
	hold    time.Duration // longest critical section (rbworker --hold; 0: its default)
	minHold time.Duration // shortest critical section (rbworker --min-hold; 0: its default)
	// manager is the share of the workers' acquisitions that are the lock
	// manager's (rbworker --manager-share): Shared locks, groups and
	// hierarchical ids. The fleets take --manager-share; controls their own.
	manager float64
	// dcs marks a segment of a cluster of two data centres (--dcs 2): its
	// workers alternate between dc1 and dc2 (rbworker --dc, their sessions
	// routed there, started in their data centre's client cgroup), and
	// take a share local of DC-local locks (rbworker --local-share).
	dcs   bool
	local float64
	// lockTimeout bounds one Lock call (rbworker --lock-timeout; 0: its
	// default 4×TTL). The DC fleet's is one TTL: a dc2 worker's global
	// Lock blocks for as long as the data centres are apart, and must give
	// way in time for the worker to take DC-local locks meanwhile.
	lockTimeout time.Duration
	// lockd runs some of the workers through lockd processes (lockd.go);
	// lk is the segment's lockds once planned, lockdEvs its lockd track.
	lockd    lockdSetup
	keyspace string // another segment's keyspace to share (keyspaceOf)
	lk       *lockdSet
	lockdEvs []nemesis.Event
	// lockman is how many of the segment's workers are lock-manager
	// workers (rbworker --lockman-history, ROBUSTNESS.md): the last ones,
	// in place of plain workers, taking deadlock-prone units of work on
	// dl-N and handing tx-N over to each other; lockmanPlant is their
	// planted defects (rbworker --lockman-plant).
	lockman      int
	lockmanPlant string
	// lockmanPlan is their slots (rbworker --lockman-plan; "": its
	// default, PRPT); extra adds that many workers to --workers, so that
	// lock-manager workers need not displace plain ones.
	lockmanPlan string
	extra       int
	// coordinators, when set, pins worker i's every request to node
	// coordinators[i % len] (rbworker --coordinator): that node's clock
	// then decides which TTL'd cells each of its reads sees.
	coordinators []int
	// catchBy, for a control, names checkers that must each find a
	// violation (any one will do when empty).
	catchBy []string
	// handoffWorkers, the first workers of the segment (plain ones, never
	// lockd clients or lock-manager workers), run their loop on
	// handoffGoroutines goroutines (rbworker --goroutines), each a holder
	// of its own, taking plain Locks only (no --manager-share), through a
	// Locker with LocalHandoff handoff (rbworker --local-handoff);
	// handoffPlant, when set, is their --plant instead of the segment's.
	handoffWorkers, handoffGoroutines, handoff int
	handoffPlant                               string
	// evidence, when set, is every worker's and lockd's --evidence
	// (queuelock.Options.Evidence; docs/algorithms.md §5.3): "use" draws
	// the tokens of locks of mode new beside their claims, every process
	// of the segment recording each token it holds, the combined ones
	// included, as a fleet at use must.
	evidence string
}

var fleets = []segment{
	// The lockd clients w2 (Go, l1 alone), w3 (Go) and w4 (Python), the
	// last two failing over between l2 and l1, added to the four; the
	// lockds run with --local-handoff 8 --retain 20ms (fleetLockd), so the
	// clients that fail over move with locks the local-handoff layer
	// granted and shared.
	// Every process at --evidence use (tokens drawn beside the claims),
	// and at the lockds' lock TTL: one TTL per table (docs/algorithms.md,
	// A7).
	{name: "new", modes: []string{"new"}, phase: "new", lockd: fleetLockd, extra: 1, evidence: "use", ttl: lockdLockTTL},
	// Four lock-manager workers added to the four plain ones: legacy
	// mode publishes waits too (docs/algorithms.md §8.5), and the cycle
	// checker needs enough cycles to judge.
	{name: "legacy", modes: []string{"legacy"}, phase: "legacy", lockman: 4, extra: 4},
	// Four lock-manager workers each (two added to the four plain ones,
	// of which two stay plain): in a slot of pairs they form two cycles of
	// two, in a ring slot one of three (rbworker's slots.go).
	{name: "combined", modes: []string{"combined"}, phase: "combined", lockman: 4, extra: 2},
	{name: "legacy+combined", modes: []string{"legacy", "combined"}, phase: "legacy", lockman: 4, extra: 2},
	// Four lock-manager workers added after the lockd clients (w2, w3 and
	// w4, as in new): new (w5, w7) and combined (w6, w8). The two plain
	// workers, w0 (combined) and w1 (new), run two goroutines each on a
	// migration Locker with LocalHandoff 2 (docs/algorithms.md §4.15): a
	// store hold passes between a worker's goroutines in memory, each grant
	// with a fresh token, and each goroutine is judged as a holder of its
	// own (mutex, fenced, tokens); the summary counts the local handoffs.
	// They take plain Locks only: the lock manager is this fleet's lockd
	// Go clients' and lock-manager workers', and the other fleets'. Every
	// process at --evidence use: new locks draw their tokens beside their
	// claims, combined ones record theirs for them; every process at the
	// lockds' lock TTL, as in new.
	{name: "combined+new", modes: []string{"combined", "new"}, phase: "new", lockd: fleetLockd, lockman: 4, extra: 5,
		handoffWorkers: 2, handoffGoroutines: 2, handoff: 2, evidence: "use", ttl: lockdLockTTL},
	{name: "rollout", modes: []string{"legacy"}, phase: "legacy", rollout: true},
	// Two data centres: workers in both take global locks (QUORUM, one
	// holder across the data centres) and DC-local ones (LOCAL_QUORUM, one
	// holder per data centre) under DC partitions only: dc1 keeps a quorum
	// of every row and goes on with both scopes, dc2 keeps its DC-local
	// locks only. No lock-manager acquisitions: the manager is judged in
	// the other fleets.
	{name: "dc-scopes", modes: []string{"new"}, phase: "new", dcs: true, local: 0.5, weight: 1.3, lockTimeout: 4 * time.Second,
		kinds: []nemesis.Kind{nemesis.KindDCPartition}},
}

var controls = []segment{
	// Old binaries taking legacy and new locks side by side on the same
	// ids: nothing coordinates them, so exclusion must break.
	{name: "ctl-legacy+new", modes: []string{"legacy", "new"}, phase: "legacy", bypass: true, locks: 2,
		events: func(*runner, *segment, time.Duration) []nemesis.Event { return nil },
		expect: expectViolation, control: true, weight: 0.5},
	// Client pauses longer than the TTL: a paused holder resumes and writes
	// after its lease lapsed. The fenced register rejects it (its token is
	// older); the unfenced counter loses an update.
	{name: "ctl-unfenced", modes: []string{"new"}, phase: "new", locks: 2,
		events: pauseEvery, expect: expectCounterLoss, control: true, weight: 0.8},
	// A lease defect (TTL/2 from the send, blind to whole-second expiry and
	// server skew) with a TTL of 2 s and one node's clock 1 s ahead, within
	// the 1 s MaxServerSkew the workers assume. The defect bites only a
	// holder still in its critical section when its cells expire as node 2
	// reads them, which happens within the planted lease's 1 s: every
	// critical section lasts 0.6–0.9 s, so nearly each one outlives its
	// cells there (with rbworker's default of 0–1 s, a window could pass
	// with none caught). A read's now is its coordinator's, so the skew
	// bites only a contender whose reads node 2 coordinates, against a
	// holder whose writes another node did: with every node for every
	// worker (round robin) that was one read in three. Half the workers
	// now send everything through node 2, half through node 1, so it is
	// every such pair's. The window is still short for the legacy lock
	// under contention (about 50 acquisitions in all, a third of them
	// returning with the planted lease already over): of the windows
	// logged, three caught 6–8 violations and one (CI) none before the
	// pinning; after it, four caught 2, 5, 8 and 2 and one (CI) none.
	// controlWindows gives a missed window another.
	{name: "ctl-planted", modes: []string{"legacy"}, phase: "legacy", plant: "half-ttl-lease", ttl: 2 * time.Second, locks: 2,
		minHold: 600 * time.Millisecond, hold: 900 * time.Millisecond, coordinators: []int{2, 1},
		events: func(r *runner, _ *segment, window time.Duration) []nemesis.Event {
			return []nemesis.Event{{At: 0, Hold: window, Nemesis: nemesis.Bump(r.cluster, 2, time.Second)}}
		},
		expect: expectViolation, control: true, weight: 0.6},
	// The lock manager with its intention locks planted away: a
	// hierarchical Lock of "lock-0/a" takes no IX on "lock-0", so it holds
	// beside an exclusive (or Shared) holder of "lock-0". Only the access
	// checker can see it: the mutex model judges each id alone. No faults.
	// Its last two workers are lock-manager workers with two planted
	// defects of their own (in this control rather than one of their own,
	// which would cost the run a segment): made-up ErrDeadlocks with no
	// cycle, which the deadlock checker must catch, and givers that leave
	// before their successor adopts while the successor records the hold
	// as continuous, which the transfer checker must catch through the
	// holder admitted in the gap. Its first two workers (two added, so
	// that two plain workers keep the segment's plant) run two goroutines
	// each with local handoff planted with ReuseToken: a goroutine handed
	// another's store hold keeps that holder's token, which the tokens
	// checker must catch. Each of the four checkers must catch its own.
	{name: "ctl-skip-intention", modes: []string{"new"}, phase: "new", plant: "skip-intention", locks: 2, manager: 0.7,
		handoffWorkers: 2, handoffGoroutines: 2, handoff: 2, handoffPlant: "reuse-token", extra: 2,
		lockman: 2, lockmanPlant: "fake-deadlock,early-leave", lockmanPlan: "PPT", catchBy: []string{"access", "deadlock", "transfer", "tokens"},
		events: func(*runner, *segment, time.Duration) []nemesis.Event { return nil },
		expect: expectViolation, control: true, weight: 0.45},
	// Global locks served at LOCAL_QUORUM (planted: the DC-local store with
	// its scope hidden, which a global store refuses at New), with the data
	// centres cut apart for the whole window: each side's quorum admits its
	// own holder of lock-0, and the mutex model, judging the global lock
	// across data centres, must catch it.
	{name: "ctl-dc-local-quorum", modes: []string{"new"}, phase: "new", dcs: true, plant: "global-at-local-quorum", locks: 2,
		events: func(r *runner, _ *segment, window time.Duration) []nemesis.Event {
			p, err := nemesis.NewDCPartition(r.cluster)
			if err != nil {
				return nil // refused earlier: the control needs --dcs 2
			}
			return []nemesis.Event{{At: time.Second, Hold: window - time.Second, Nemesis: p}}
		},
		expect: expectViolation, control: true, weight: 0.45},
	ctlLockdIgnoresLost,
}

// fleetNames are the fleets a cluster of dcs data centres runs.
func fleetNames(dcs int) []string {
	var n []string
	for _, f := range fleets {
		if !f.dcs || dcs == 2 {
			n = append(n, f.name)
		}
	}
	return n
}

func fleetByName(name string) (segment, bool) {
	for _, f := range fleets {
		if f.name == name {
			return f, true
		}
	}
	return segment{}, false
}

// pauseEvery fills the window with client pauses of TTL + 2 s, a second
// apart, each on a worker inside its critical section.
func pauseEvery(r *runner, seg *segment, window time.Duration) []nemesis.Event {
	ttl := seg.ttl
	if ttl == 0 {
		ttl = r.o.ttl
	}
	pause := r.clientPauser(seg)
	var evs []nemesis.Event
	for at, i := time.Second, 0; at+ttl+2*time.Second <= window; at, i = at+ttl+3*time.Second, i+1 {
		evs = append(evs, nemesis.Event{At: at, Hold: ttl + 2*time.Second, Nemesis: pause(fmt.Sprintf("#%d", i))})
	}
	return evs
}
