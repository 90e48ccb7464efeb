package check

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// Options tune the checkers. The zero value checks safety only.
type Options struct {
	// Timeout bounds porcupine's search per lock id. Default one minute.
	Timeout time.Duration
	// HealNS is when the final heal ended, ns since the run's epoch; zero
	// skips the liveness check.
	HealNS int64
	// LivenessBound is how soon after HealNS every running worker must
	// acquire. Default 30s when HealNS is set.
	LivenessBound time.Duration
	// BypassSlack is added to the queue lock's bypass bound, 2(n−1) others'
	// acquisitions per wait, checked after HealNS. Default 0.
	BypassSlack int
	// VisualizeDir, when set, receives porcupine's HTML rendering of every
	// lock whose history the mutex model rejects. Default none.
	VisualizeDir string
	// StrictCounter makes lost updates on the unfenced counter violations
	// (for runs without client pauses).
	StrictCounter bool
	// Partitions are the DC partitions of the run (from injection to heal,
	// ns since the epoch): the per-scope counts say which acquisitions
	// returned during them.
	Partitions []Span
	// LocalProgress makes a data centre that took no DC-local lock during
	// the Partitions a violation (checker dc-progress).
	LocalProgress bool
	// LockdEvents are the run's lockd nemeses (checker lockd-loss, lost.go).
	LockdEvents []LockdEvent
	// LockdMovers are the lockd clients given every lockd, which fail
	// over: a lockd event must cost them no lock (lost.go).
	LockdMovers []string
	// Faults are every nemesis event of the run, from injection to heal
	// (ns since the epoch): the cycle checker (cycles.go) does not judge
	// the time a cycle spends inside one or within faultRecovery after it.
	Faults []Span
	// CycleBound is how long a certain cycle of waits may last outside
	// faults (checker cycle). Default CycleBound.
	CycleBound time.Duration
}

// Violation is one thing the run did wrong.
type Violation struct {
	Checker string // mutex, mutex-undecided, access, fenced, tokens, counter, liveness, bypass, scope, dc-progress, lockd-loss, deadlock, cycle, transfer, harness
	Lock    string // the lock id (for liveness: the process)
	Detail  string
}

func (v Violation) String() string { return fmt.Sprintf("[%s] %s: %s", v.Checker, v.Lock, v.Detail) }

// Report is what Run found.
type Report struct {
	Operations int // history records
	Unknown    int // records with an unknown outcome
	Holds      int // successful acquisitions
	Lost       int // holds whose worker saw the lease lost
	Open       int // holds with no end (worker killed while holding)
	// Manager counts the holds that were not one exclusive request of a
	// flat id: shared, grouped or hierarchical (judged by access only).
	Manager int
	// Shared counts the pairs of holds of different processes that
	// certainly overlapped on related ids (one id, or ids under one
	// ancestor), compatibly: readers sharing, writers of sibling ids.
	Shared int
	// Register figures.
	FencedAccepted, FencedRejected int
	CounterLostUpdates             int
	// LocalHandoffs counts the plain holds handed a store hold in memory by
	// another holder of their worker process (rbworker --local-handoff):
	// those with the owner of an earlier hold of the lock (tokens.go).
	LocalHandoffs int
	// MaxBypass is the most acquisitions by others during one wait in mode
	// new or combined after the heal (checked only with HealNS).
	MaxBypass int
	// Misalignment is the worst distance, in ns, by which the register
	// applied a write outside the interval its worker recorded for it: 0
	// when the worker and the register share the epoch.
	Misalignment int64
	// MutexTime is porcupine's total time over all lock ids.
	MutexTime time.Duration
	// Scopes counts the holds per scope and data centre (empty when no
	// record names a data centre); PartitionTime is the DC partitions'
	// total length.
	Scopes        []ScopeCount
	PartitionTime time.Duration
	// LockdEvents counts Options.LockdEvents; LockdSpanning the holds of
	// their affected clients with one lockd that spanned one, LockdLost
	// those of them that ended by a loss report; LockdMoverSpanning the
	// holds of Options.LockdMovers that spanned one, LockdLostByMover those
	// of them lost with time ahead (each a violation), LockdExpiredByMover
	// those lost because their own time ran out (lost.go).
	LockdEvents, LockdSpanning, LockdLost                     int
	LockdMoverSpanning, LockdLostByMover, LockdExpiredByMover int
	// LockdUnlockLostByMover counts the movers' spanning holds whose loss
	// surfaced in their Unlock, invoked while the lock was valid
	// (lost.go): ended by that Unlock, not violations.
	LockdUnlockLostByMover int
	// Moves are the lockd clients' fail-overs (moves.go).
	Moves MoveReport
	// Lockman has the lock-manager workers' figures (lockman.go).
	Lockman    LockmanReport
	Violations []Violation
}

// Summary is a few lines for people, ending in the violation count.
func (r Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "check: %d operations (%d unknown outcome), %d holds (%d shared/group/hierarchical, %d lost, %d open at the end); worker/register clocks agree within %v\n",
		r.Operations, r.Unknown, r.Holds, r.Manager, r.Lost, r.Open, time.Duration(r.Misalignment))
	fmt.Fprintf(&b, "check: fenced register %d writes accepted, %d rejected; unfenced counter %d lost updates; mutex model checked in %v; max bypass after heal %d; %d compatible overlaps of related holds\n",
		r.FencedAccepted, r.FencedRejected, r.CounterLostUpdates, r.MutexTime.Round(time.Millisecond), r.MaxBypass, r.Shared)
	if r.LocalHandoffs > 0 {
		fmt.Fprintf(&b, "check: %d local handoffs (holds handed another goroutine's store hold in memory)\n", r.LocalHandoffs)
	}
	b.WriteString(r.scopeSummary())
	b.WriteString(r.lockdSummary())
	b.WriteString(r.lockmanSummary())
	const maxShown = 20
	for i, v := range r.Violations {
		if i == maxShown {
			fmt.Fprintf(&b, "check: ... and %d more\n", len(r.Violations)-maxShown)
			break
		}
		fmt.Fprintf(&b, "check: VIOLATION %s\n", v)
	}
	fmt.Fprintf(&b, "check: %d violations", len(r.Violations))
	if len(r.Violations) > 0 {
		fmt.Fprintf(&b, " (checkers: %s)", strings.Join(r.Checkers(), ", "))
	}
	return b.String()
}

// Checkers lists the checkers that found violations, sorted.
func (r Report) Checkers() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range r.Violations {
		if !seen[v.Checker] {
			seen[v.Checker] = true
			out = append(out, v.Checker)
		}
	}
	sort.Strings(out)
	return out
}

// Run checks the histories in historyDir against the register's log ops,
// and the lock-manager workers' histories below it (history.LockmanDir)
// with the deadlock and transfer checkers.
func Run(historyDir string, ops []register.Op, opts Options) (Report, error) {
	recs, err := history.ReadDir(historyDir)
	if err != nil {
		return Report{}, err
	}
	evs, err := history.ReadLockman(historyDir)
	if err != nil {
		return Report{}, err
	}
	moves, err := history.ReadMoves(historyDir)
	if err != nil {
		return Report{}, err
	}
	rest, lm := splitLockmanOps(ops)
	r, err := Records(recs, rest, opts)
	if err != nil {
		return r, err
	}
	r.Moves = Moves(moves)
	r.Operations += len(evs)
	r.Violations = append(r.Violations, checkLockman(evs, lm, opts, &r)...)
	return r, nil
}

// Records checks records already read.
func Records(recs []history.Record, ops []register.Op, opts Options) (Report, error) {
	if opts.Timeout == 0 {
		opts.Timeout = time.Minute
	}
	if opts.HealNS != 0 && opts.LivenessBound == 0 {
		opts.LivenessBound = 30 * time.Second
	}
	if opts.Timeout < 0 || opts.LivenessBound < 0 || opts.BypassSlack < 0 || opts.CycleBound < 0 {
		return Report{}, fmt.Errorf("check: Timeout %v, LivenessBound %v, BypassSlack %d and CycleBound %v must not be negative",
			opts.Timeout, opts.LivenessBound, opts.BypassSlack, opts.CycleBound)
	}
	var r Report
	r.Operations = len(recs)
	for _, rec := range recs {
		if rec.Outcome == history.Unknown {
			r.Unknown++
		}
	}
	hs, err := buildHolds(recs)
	if err != nil {
		return r, err
	}
	var plain []*hold
	for _, h := range hs {
		r.Holds++
		if h.plain() {
			plain = append(plain, h)
		} else {
			r.Manager++
		}
		switch h.end {
		case endLost:
			r.Lost++
		case endOpen:
			r.Open++
		}
	}
	mis, vs := checkAlignment(recs, ops)
	r.Misalignment, r.Violations = mis, append(r.Violations, vs...)
	r.Violations = append(r.Violations, checkMutex(plain, opts.Timeout, opts.VisualizeDir, &r)...)
	r.Violations = append(r.Violations, checkAccess(hs, &r)...)
	r.Violations = append(r.Violations, checkRegister(ops, hs, opts, &r)...)
	r.Violations = append(r.Violations, checkTokens(plain, &r)...)
	r.Violations = append(r.Violations, checkScopes(recs, hs, opts, &r)...)
	r.LockdEvents = len(opts.LockdEvents)
	r.Violations = append(r.Violations, checkLockdLoss(hs, opts.LockdEvents, opts.LockdMovers, &r)...)
	if opts.HealNS != 0 {
		r.Violations = append(r.Violations, checkLiveness(recs, opts.HealNS, int64(opts.LivenessBound))...)
		var flat []*hold // the queue lock's own acquisitions, not the manager's
		for _, h := range plain {
			if !strings.Contains(h.lock, Separator) {
				flat = append(flat, h)
			}
		}
		vs, most := checkBypass(flat, opts.HealNS, opts.BypassSlack)
		r.Violations, r.MaxBypass = append(r.Violations, vs...), most
	}
	return r, nil
}
