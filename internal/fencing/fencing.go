// Package fencing draws the fencing token of an acquisition for every
// lock algorithm and wrapper of the module, so that each orders
// tokens as ownership the same way.
//
// # Why a token drawn after the claim is ordered as ownership
//
// An acquisition draws its token from the global time service
// (clock.Global.Next) after its claim succeeded, and keeps it only if every
// lease it depends on was still open when the draw returned: the draw's
// answer arrived before the lease deadline, which is measured from the send
// of the claim's write (internal/lease, on elapsed time). Take two
// successive owners of one lock id, A and then B:
//
//  1. A's token was returned while A's lease was open, so A's cells were
//     alive at every replica from A's claim until that moment (the lease
//     window is half their guaranteed life, internal/lease).
//  2. B's claim succeeded only after A's cells were gone (deleted by A's
//     Unlock or expired): while they live, B's claim read sees them and
//     fails (lemma 1). So B claimed after A's token was returned.
//  3. B draws after its claim, so B's draw started after A's draw completed.
//  4. clock.Global.Next returns a value strictly greater than any value
//     written by a draw that completed before this one started.
//
// Hence t(B) > t(A). A queue Locker with Options.Evidence draws beside the
// claim instead, so step 3 does not hold; it keeps the token only above the
// evidence its claim read returned (internal/queue/evidence.go;
// docs/algorithms.md, section 5.3, Theorem 6b). A draw of a block (Drawer.Block, clock.Global.Reserve)
// writes the block's last value, so step 4 puts B's token above the whole
// block: the tokens A's process grants from it in memory, each kept only
// while A's lease is open (internal/cohort), are below t(B) too. Without the check in step 1 the argument breaks: a
// holder stalled between its claim and its draw (a pause, a slow global time
// table) returns with its cells long expired and a token drawn after, or
// below, its successor's. A draw that fails leaves no token at all; the
// acquisition fails rather than hand out a lock a fenced resource cannot
// tell apart from its successors (token 0 is refused by package fence).
package fencing

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// ErrLapsed is wrapped by Draw's error when a lease lapsed before the token
// arrived. It wraps lockstep.ErrLost.
var ErrLapsed = fmt.Errorf("lease lapsed before the fencing token arrived: %w", lockstep.ErrLost)

// TestingKnobs switch on this package's planted defect, for the model
// checks' negative controls; production code leaves them nil.
type TestingKnobs struct {
	// UncheckedToken makes Draw return the token without asking open, and
	// token 0 with a nil error when the draw failed, so a holder that stalled between its claim and the draw
	// returns with a token above its successor's.
	UncheckedToken bool
}

// Drawer draws the fencing tokens of one Locker from its global time cell.
type Drawer struct {
	Global *clock.Global
	// Block is how many consecutive tokens the draw reserves
	// (clock.Global.Reserve): the first is the acquisition's, the others
	// are for the holders a local-handoff layer grants the same store hold
	// in memory (internal/cohort). 0 or 1: one token.
	Block int
	Knobs *TestingKnobs // nil in production
}

// Draw returns a fencing token from d.Global for an acquisition that holds
// its lock now, the first of d.Block reserved (Last gives the block's
// last). open is asked after the draw returned and must report
// whether every lease the acquisition depends on is still open (for a lease
// started at the claim's send: lease.Config.InTime, or the lease's own
// IsLost).
//
// It returns an error wrapping ErrLapsed (and so lockstep.ErrLost) when open
// reports false, and one wrapping the store's error when the draw failed —
// with errors.Is(err, ctx.Err()) when ctx ended. ctx bounds the draw's two
// requests. Draw writes nothing but the global time cell; on error the
// caller must give the lock up.
func (d Drawer) Draw(ctx context.Context, open func() bool) (int64, error) {
	t, err := d.Global.Reserve(ctx, max(1, d.Block))
	if d.Knobs != nil && d.Knobs.UncheckedToken {
		if err != nil {
			return 0, nil
		}
		return t, nil
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			return 0, fmt.Errorf("drawing fencing token: %w (%w)", cerr, err)
		}
		return 0, fmt.Errorf("drawing fencing token: %w", err)
	}
	if !open() {
		return 0, ErrLapsed
	}
	return t, nil
}

// Last returns the last token of the block whose first Draw returned: first
// itself for a block of one, and 0 when first is 0 (no token).
func (d Drawer) Last(first int64) int64 {
	if first == 0 {
		return 0
	}
	return first + int64(max(1, d.Block)) - 1
}
