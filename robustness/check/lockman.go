package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// The lock-manager workers' ids (rbworker --lockman): deadlock-prone units
// of work take "dl-N", transfers "tx-N". Their register writes are judged
// by the transfer checker, not checkRegister: a successor writes under its
// giver's token, which a strict token order would call stale.
const (
	DeadlockPrefix = "dl-"
	TransferPrefix = "tx-"
)

// LockmanReport is what the deadlock and transfer checkers found
// (Report.Lockman): their figures; the violations are in Report.Violations.
type LockmanReport struct {
	Events int // lock-manager workers' events
	// Deadlock-prone units: acquisitions, how many were reentrant, how
	// many failed with ErrDeadlock, and the ErrDeadlocks the history
	// showed a cycle for.
	Acquisitions, Reentrant, Deadlocks, Confirmed int
	// LongestWait is the longest acquisition (any outcome) of a dl- id;
	// LongestQuietWait the longest one that began after the final heal
	// (Options.HealNS).
	LongestWait, LongestQuietWait time.Duration
	// Cycles of waits the history makes certain (cycles.go): how many,
	// how many of three processes or more, the longest, and the longest
	// piece of one outside the faults (what the cycle checker judges).
	Cycles, LongCycles               int
	LongestCycle, LongestJudgedCycle time.Duration
	// Transfers: handovers offered (Share), adopted, and holds of tx- ids
	// (acquisitions and adoptions).
	Offered, Adopted, TransferHolds int
	// SuccessorWrites are fenced writes accepted from a successor under
	// its giver's token.
	SuccessorWrites int
}

// splitLockmanOps separates the register requests on the lock-manager
// workers' ids from the others.
func splitLockmanOps(ops []register.Op) (rest, lm []register.Op) {
	for _, op := range ops {
		if isLockmanID(op.Lock) {
			lm = append(lm, op)
		} else {
			rest = append(rest, op)
		}
	}
	return rest, lm
}

func isLockmanID(id string) bool {
	return strings.HasPrefix(id, DeadlockPrefix) || strings.HasPrefix(id, TransferPrefix)
}

// checkLockman runs the deadlock and transfer checkers (deadlock.go,
// transfer.go) on the lock-manager workers' events and their register
// requests.
func checkLockman(evs []history.Event, ops []register.Op, opts Options, r *Report) []Violation {
	r.Lockman.Events = len(evs)
	var dl, tx []history.Event
	for _, e := range evs {
		if strings.HasPrefix(e.ID, TransferPrefix) {
			tx = append(tx, e)
		} else {
			dl = append(dl, e)
		}
	}
	out := checkDeadlocks(dl, opts.HealNS, &r.Lockman)
	bound := opts.CycleBound
	if bound == 0 {
		bound = CycleBound
	}
	out = append(out, checkCycles(dl, opts.Faults, bound, &r.Lockman)...)
	return append(out, checkTransfers(tx, ops, &r.Lockman)...)
}

// lockmanSummary is the report's line about the lock-manager workers, or
// "" when the run had none.
func (r Report) lockmanSummary() string {
	l := r.Lockman
	if l.Events == 0 {
		return ""
	}
	return fmt.Sprintf("check: lock-manager workers %d events: %d nested acquisitions (%d reentrant), %d ErrDeadlock (%d with a cycle in the history), longest wait %v (after the heal %v); %d certain cycles (%d of 3+ processes), longest %v (outside faults %v); %d handovers offered, %d adopted, %d transfer holds, %d fenced writes by successors\n",
		l.Events, l.Acquisitions, l.Reentrant, l.Deadlocks, l.Confirmed, l.LongestWait.Round(time.Millisecond), l.LongestQuietWait.Round(time.Millisecond),
		l.Cycles, l.LongCycles, l.LongestCycle.Round(time.Millisecond), l.LongestJudgedCycle.Round(time.Millisecond),
		l.Offered, l.Adopted, l.TransferHolds, l.SuccessorWrites)
}

// mhold is one hold of a lock-manager worker: from the acquisition (or
// adoption) to its release, with the instants the history makes certain
// (from the return to the last Lost() seen open) and possible (from the
// invoke to the release's return).
type mhold struct {
	process, id, access string
	owner               string
	token               int64
	handover            string // an adoption's handover
	mayFrom, mayTo      int64
	from, to            int64 // certain
}

// buildMholds pairs each process's acquisitions and adoptions (reentrant
// ones excepted: they add nothing to the hold) with their releases, in
// the order each worker wrote its events. A hold with no release (its
// worker died holding) may last forever and is certain until its return.
func buildMholds(evs []history.Event) []*mhold {
	type key struct{ process, id string }
	open := map[key]*mhold{}
	var out []*mhold
	for _, e := range evs {
		k := key{e.Process, e.ID}
		switch {
		case (e.Op == history.EvAcquire || e.Op == history.EvAdopt) && e.Outcome == history.OK && !e.Reentrant:
			h := &mhold{process: e.Process, id: e.ID, access: e.Access, owner: e.Owner, token: e.Token,
				mayFrom: e.InvokeNS, mayTo: history.Never, from: e.ReturnNS, to: e.ReturnNS}
			if h.access == "" {
				h.access = "X"
			}
			if e.Op == history.EvAdopt {
				h.handover = e.Handover
			}
			open[k] = h
			out = append(out, h)
		case e.Op == history.EvRelease && !e.Reentrant:
			h := open[k]
			if h == nil {
				continue
			}
			delete(open, k)
			h.mayTo = e.ReturnNS
			if e.Outcome == history.Unknown {
				h.mayTo = history.Never
			}
			h.to = max(h.from, e.ValidNS)
		}
	}
	return out
}
