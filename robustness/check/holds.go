package check

import (
	"fmt"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// endKind says how a hold ended.
type endKind uint8

const (
	endOpen    endKind = iota // no end recorded: the worker died holding
	endRelease                // Unlock, with no loss seen before
	endLost                   // the worker saw the lease lost
)

// hold is one successful acquisition and what followed, as its worker
// recorded it.
type hold struct {
	process, lock string
	token         int64
	mode          string
	// members are the requests of the acquisition: one exclusive request
	// of lock for a plain Lock call.
	members   []member
	acquire   history.Record
	end       endKind
	endInvoke int64 // release: Unlock's invoke; lost: the expire's start
	endReturn int64 // release: Unlock's return (history.Never if unknown); lost: when seen
	expired   bool  // lost: the lock's own time had run out (history.Record.Expired)
	// inUnlock: lost, and the loss surfaced in an Unlock invoked while the
	// lock was valid by its client's rules, as the records show it
	// (unlockLoss): the hold ended at that invocation.
	inUnlock bool
	lostRec  history.Record // lost: the record
	// deadlines are the lease deadline's lower bounds as the worker knew
	// them, each from the instant it was reported (acquire, then renewals).
	deadlines []deadlineAt
}

type deadlineAt struct{ at, deadline int64 }

// deadline returns the lower bound of the lease deadline in force at t: the
// latest one reported by t (the acquisition's, if none yet).
func (h *hold) deadline(t int64) int64 {
	d := h.deadlines[0].deadline
	for _, x := range h.deadlines {
		if x.at <= t {
			d = max(d, x.deadline)
		}
	}
	return d
}

// lastDeadline is the latest deadline reported at all.
func (h *hold) lastDeadline() int64 {
	d := h.deadlines[0].deadline
	for _, x := range h.deadlines {
		d = max(d, x.deadline)
	}
	return d
}

// buildHolds pairs each process's successful acquisitions with their ends,
// in the order each worker wrote its records.
func buildHolds(recs []history.Record) ([]*hold, error) {
	var out []*hold
	open := map[string]*hold{} // process → its hold in progress
	for _, r := range recs {
		h := open[r.Process]
		if h != nil && h.lock != r.Lock && r.Op != history.Renew {
			// A worker holds one lock at a time: a record about another
			// lock means the hold's end was never written.
			delete(open, r.Process)
			h = nil
		}
		switch r.Op {
		case history.Acquire:
			if r.Outcome != history.OK {
				continue
			}
			if h != nil {
				delete(open, r.Process) // its end was never written
			}
			if r.LeaseDeadlineNS == 0 {
				return nil, fmt.Errorf("check: acquisition of %s by %s at %d has no lease_deadline_ns", r.Lock, r.Process, r.ReturnNS)
			}
			ms, err := parseMembers(r)
			if err != nil {
				return nil, err
			}
			h = &hold{process: r.Process, lock: r.Lock, token: r.Token, mode: r.Mode, members: ms, acquire: r,
				deadlines: []deadlineAt{{r.ReturnNS, r.LeaseDeadlineNS}}}
			open[r.Process] = h
			out = append(out, h)
		case history.Renew:
			if h != nil && h.lock == r.Lock && r.Outcome == history.OK && r.LeaseDeadlineNS != 0 {
				h.deadlines = append(h.deadlines, deadlineAt{r.ReturnNS, r.LeaseDeadlineNS})
			}
		case history.Lost:
			if h == nil || h.end != endOpen {
				continue
			}
			h.end, h.endInvoke, h.endReturn, h.expired, h.lostRec = endLost, r.InvokeNS, r.ReturnNS, r.Expired, r
		case history.Release:
			if h == nil {
				continue
			}
			if h.end == endOpen {
				h.end, h.endInvoke, h.endReturn = endRelease, r.InvokeNS, r.ReturnNS
				if r.Outcome == history.Unknown {
					h.endReturn = history.Never
				}
			}
			h.inUnlock = h.end == endLost && unlockLoss(h.lostRec, r)
			delete(open, r.Process)
		}
	}
	return out, nil
}

// unlockLoss reports whether lost, a hold's lost record, and rel, its
// release, show a loss that surfaced in the Unlock: the lost record says so
// (InUnlock) and its evidence agrees — it starts at the Unlock's invocation
// (a loss whose deadline or sighting came earlier would start before it),
// and the worker's watcher saw the lock's Lost close (KnownNS) at or after
// that invocation, not before it. A worker that labelled an earlier loss
// InUnlock fails the second test; one planted to ignore Lost keeps no
// watcher (KnownNS 0) and fails it too.
func unlockLoss(lost, rel history.Record) bool {
	return lost.InUnlock && lost.InvokeNS == rel.InvokeNS && lost.KnownNS != 0 && lost.KnownNS >= rel.InvokeNS
}
