package propertytests

import (
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Property Q, a holder gives its queue cell up (docs/algorithms.md, section
// 4.13): a queue-lock holder whose Lost() is open, and whose owner cell has
// had a renewal acknowledged since it acquired, has no live queue cell —
// judged as property 2b judges owner cells (ownercell_test.go): the
// version that wins across every replica, read without read repair. The
// first renewal that succeeds deletes the queue cell in the same mutation
// (lockstep.Mutator's PutDelete, which the simulated process store offers:
// each replica applies both at once), with a timestamp above every write of
// that cell by the holder's Locker; so once the renewal is acknowledged the
// tombstone is on the replicas that acknowledged it and wins there, and no
// grace period is needed. A queue cell left live for the hold would pin
// every reader's floor at its name (docs/algorithms.md, section 4.13).
//
// It applies to every queue part a fleet holds: a lock of mode new, the
// queue half of a combined lock, every such member of a group. It skips
// crashed processes, holds not yet renewed, and shared owners — a lock
// given by Share or taken by Adopt (transferfleet_test.go), whose queue
// cell is the acquisition's and renewed by every holder (section 8.7).
//
// "Its queue cell" is the column of the latest queue-cell write naming the
// owner in the row: the holder's place in line. A cell of an earlier place
// that a failed delete left behind is not renewed and expires on its own.
//
// It is checked with the other safety properties after every step
// (checkSafety), not at work time beside the lease check: it is a property
// of the replicas' state, which changes at deliveries and ticks rather
// than at a holder's steps, and a holder that does not work for a while
// (not scheduled, or waiting in a group) is then still judged.

// queueCells is what the harness saw of queue cells and renewals. Guarded
// by harness.mu.
type queueCells struct {
	col     map[claimKey]string // owner and row → column of the latest write of its queue cell
	renewed map[claimKey]int64  // owner and row → virtual µs of the acknowledgement of its first renewal
	shared  map[string]bool     // owners whose lock was shared (Share succeeded)
}

func (h *harness) queueCellState() *queueCells {
	if h.qcells == nil {
		h.qcells = &queueCells{col: map[claimKey]string{}, renewed: map[claimKey]int64{}, shared: map[string]bool{}}
	}
	return h.qcells
}

// noteShared records that owner's lock was shared: its holders keep its
// queue cell. The caller holds h.mu.
func (h *harness) noteShared(owner string) {
	h.queueCellState().shared[owner] = true
}

// noteQueueCells records what a finished put y (acknowledged if ok) tells
// about queue cells: where each owner's queue cell is, and the first
// acknowledged renewal of a holder's owner cell — a write of it sent after
// the winning claim's (fencing_test.go's noteClaim, which must run first,
// keeps that send), while the owner holds the row. The caller holds h.mu.
func (h *harness) noteQueueCells(y *sim.Yield, ok bool) {
	if y.Kind != sim.Put || y.Table != queuelock.DefaultTable {
		return
	}
	qs := h.queueCellState()
	for _, c := range y.Cells {
		if _, owner, err := layout.ParseQueueColumn(c.Column); err == nil {
			qs.col[claimKey{owner, y.Row}] = c.Column
			continue
		}
		if !ok || !isOwnerCell(y.Table, c.Column) {
			continue
		}
		owner := ownerOf(y.Table, c.Column, c.Value)
		if layout.IsHandedFor(c.Column, owner) {
			// A releaser's handoff (4.12), retried after its holder has
			// claimed on its own: written for the owner, not its renewal.
			continue
		}
		k := claimKey{owner, y.Row}
		if _, done := qs.renewed[k]; done || owner == "" || !h.ownerHolds(owner, y.Row) {
			continue
		}
		if claim, ok := h.fencing.claimSent[k]; ok && y.SentElapsed > claim {
			qs.renewed[k] = h.s.Now()
		}
	}
}

// checkQueueCells checks property Q; the caller holds h.mu.
func (h *harness) checkQueueCells() error {
	qs := h.qcells
	if qs == nil {
		return nil
	}
	for _, pr := range h.procs {
		if pr.sp.Crashed() {
			continue
		}
		for _, l := range h.heldAll(pr) {
			if !h.validLocked(pr, l) {
				continue
			}
			ms, _ := memberLocks(l)
			for _, m := range ms {
				owner := m.Owner()
				k := claimKey{owner, h.row(pr, m.ID())}
				at, renewed := qs.renewed[k]
				col, known := qs.col[k]
				if !renewed || !known || qs.shared[owner] {
					continue
				}
				if win, found, nowSec := h.winning(queuelock.DefaultTable, k.id, col); found && win.IsLive(nowSec) {
					return fmt.Errorf("queue cell: %s holds %s (owner %s) with Lost() open, and its queue cell %s/%s is live (timestamp %d) %v after its first acknowledged renewal",
						pr.sp.Name, m.ID(), owner, queuelock.DefaultTable, col, win.Timestamp, time.Duration(h.s.Now()-at)*time.Microsecond)
				}
			}
		}
	}
	return nil
}
