package shadow

import (
	"context"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// outcome is the result of one round of listing 4 (the names are the
// listing's: Success, AnotherThreadIsOwner, ConcurrentAttempt).
type outcome uint8

const (
	// Success: the caller's cell is the only main cell.
	success outcome = iota + 1
	// AnotherThreadIsOwner: someone else's cell is in the main row.
	anotherThreadIsOwner
	// ConcurrentAttempt: another contender was in the shadow row at the same
	// time, or the main row filled up meanwhile.
	concurrentAttempt
)

func (o outcome) String() string {
	switch o {
	case success:
		return "Success"
	case anotherThreadIsOwner:
		return "AnotherThreadIsOwner"
	case concurrentAttempt:
		return "ConcurrentAttempt"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// round is one execution of listing 4 by one acquisition.
type round struct {
	l        *Locker
	id       string
	owner    string
	requests int
	since    int64 // lease.Stamp of the send of the main write that succeeded
	fenced   bool  // draw a fencing token (Options.Fencing) for this lock alone
	block    int   // tokens the draw reserves (manager.Acquisition.TokenBlock)
	token    int64 // fencing token drawn after Success
	// shadowSent is the lease.Stamp of the send of this round's shadow write
	shadowSent int64
	// cells that may exist after a failed request, to delete on abandon
	mainMaybe, shadowMaybe bool
	// shadowDelete is the shadow delete an overlapped round left in flight
	// (overlap.go); nil otherwise
	shadowDelete *pendingDelete
	// gate, for a prepared acquisition (overlap.go), says whether a round
	// may write its main cell (true) or must give up; opened: it said true
	gate   <-chan bool
	opened bool
}

// try runs listing 4 once. On error the caller must call cleanup.
func (r *round) try(ctx context.Context) (outcome, error) {
	l := r.l
	if r.gate == nil || r.opened { // an overlapped round leaves step 1 out (overlap.go)
		main, err := r.read(ctx, l.cfg.main) // 1
		if err != nil {
			return 0, err
		}
		if len(main) == 1 { // 2
			if layout.LegacyOnly(main, r.owner) { // 3
				return success, nil // 4
			}
			return anotherThreadIsOwner, nil // 6
		}
	}
	r.shadowMaybe = true // 7
	r.requests++
	r.shadowSent = lease.Stamp(l.cfg.Clock)
	if err := l.store.Put(ctx, l.cfg.shadow, r.id, r.cell()); err != nil {
		return 0, err
	}
	shadow, main, err := r.readRows(ctx) // 8, then 10 if we are alone (9)
	if err != nil {
		return 0, err
	}
	alone := layout.LegacyOnly(shadow, r.owner)
	if alone && r.gate != nil && !r.opened && len(main) == 1 && !layout.LegacyOnly(main, r.owner) {
		// what the left-out step 1 would have found (overlap.go)
		if err := r.deleteShadow(ctx); err != nil {
			return 0, err
		}
		return anotherThreadIsOwner, nil
	}
	if alone && len(main) == 0 {
		if err := r.await(ctx); err != nil { // a prepared acquisition's gate (overlap.go)
			return 0, err
		}
		if !r.overdue() {
			r.mainMaybe = true // 11
			r.requests++
			r.since = lease.Stamp(l.cfg.Clock)
			if err := l.store.Put(ctx, l.cfg.main, r.id, r.cell()); err != nil {
				return 0, err
			}
			if r.gate != nil {
				r.deleteShadowLater(ctx) // 12, in flight while the lock is used
				return success, nil
			}
			if err := r.deleteShadow(ctx); err != nil { // 12
				return 0, err
			}
			return success, nil // 13
		}
	}
	if err := r.deleteShadow(ctx); err != nil { // 14
		return 0, err
	}
	return concurrentAttempt, nil // 15
}

// overdue reports whether more than the lease window (§4.3) has passed
// since this round's shadow write was sent. Lemma 1 needs our shadow cell
// alive from our read of the shadow row until our main cell is written; a
// round stretched past its TTL (a pause, a slow read) may find its shadow
// cell expired, and a contender that wrote its shadow cell meanwhile saw
// itself alone. The model checks found this (propertytests/testdata/
// regressions/legacy-round-outlives-shadow-ttl.json): two holders after one
// legacy process stalled a TTL between steps 8 and 10. Such a round gives up
// as a concurrent attempt and retries; the check is local, so the frozen
// format and every legacy peer are unaffected.
func (r *round) overdue() bool {
	if r.l.cfg.knobs.NoRoundDeadline {
		return false
	}
	return !r.l.cfg.Lease.InTime(r.l.cfg.Clock, r.shadowSent)
}

func (r *round) read(ctx context.Context, table string) ([]lockstep.Cell, error) {
	r.requests++
	return r.l.store.Read(ctx, table, r.id, layout.LegacyRow())
}

func (r *round) deleteShadow(ctx context.Context) error {
	r.requests++
	if err := r.l.store.Delete(ctx, r.l.cfg.shadow, r.id, r.l.ts.Next(), layout.LegacyColumn(r.owner)); err != nil {
		return err
	}
	r.shadowMaybe = false
	return nil
}

// cell is our cell in either table (internal/layout's frozen legacy cell), lease TTL,
// a fresh timestamp above any of our earlier writes or deletes.
func (r *round) cell() lockstep.Cell {
	return layout.LegacyCell(r.owner, r.l.ts.Next(), r.l.cfg.Lease.TTL)
}

// fence draws the fencing token of a round that ended in Success, keeping it
// only if the lease, which counts from the send of the main write, was
// still open when it arrived (internal/fencing has the argument). On error
// the round must be cleaned up like one that failed: its main cell is
// deleted, so the lock passes on.
func (r *round) fence(ctx context.Context) error {
	if r.l.cfg.Fencing == nil || !r.fenced {
		return nil
	}
	r.requests += 2
	t, err := fencing.Drawer{Global: r.l.cfg.Fencing, Block: r.block, Knobs: r.l.cfg.knobs.Fencing}.Draw(ctx, func() bool { return r.l.cfg.Lease.InTime(r.l.cfg.Clock, r.since) })
	if err != nil {
		return err
	}
	r.token = t
	return nil
}

// cleanup deletes whatever cells of ours may exist after a failed round, best
// effort: what it cannot delete expires after the TTL.
func (r *round) cleanup(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for _, t := range []struct {
		maybe *bool
		table string
	}{{&r.shadowMaybe, r.l.cfg.shadow}, {&r.mainMaybe, r.l.cfg.main}} {
		if !*t.maybe {
			continue
		}
		r.requests++
		if err := r.l.store.Delete(ctx, t.table, r.id, r.l.ts.Next(), layout.LegacyColumn(r.owner)); err != nil {
			r.l.cfg.Logger.Warn("shadowlock: could not delete cell; it expires after the TTL",
				"id", r.id, "owner", r.owner, "table", t.table, "err", err)
			continue
		}
		*t.maybe = false
	}
}
