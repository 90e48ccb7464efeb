package queue

import (
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
)

// lineOfTwo returns a waiting attempt of a Locker with wake-ups, in access
// acc, and the entries of a line of two: the entry in front of it (front),
// its own (mine), and the front entry's owner cell once it holds (held).
func lineOfTwo(t *testing.T, acc lockstep.Access) (a *attempt, front, mine, held layout.Entry) {
	t.Helper()
	n := &memNet{handlers: map[string]func([]byte){}}
	l := newHandoffLocker(t, model.New(&clock.Local{}), n, "w", false, nil)
	front = layout.Entry{Kind: layout.Queue, Column: "00000000000000000001/q/e.1", Owner: "e.1", Access: acc}
	mine = layout.Entry{Kind: layout.Queue, Column: "00000000000000000002/q/w.1", Owner: "w.1", Access: acc}
	held = layout.Entry{Kind: layout.Owner, Column: "~o/e/0000000000000001", Owner: "e.1", Access: acc}
	a = &attempt{l: l.core, owner: mine.Owner, qcol: mine.Column, ocol: "~o/w/0000000000000001", access: acc, knobs: &TestingKnobs{}}
	return a, front, mine, held
}

// A waiter right behind an acquisition that goes on to hold, and then gives
// its queue cell up with its first renewal (part.renew; docs/algorithms.md,
// section 4.13), is still next in line: its pacing counts that holder at the
// head, it still expects its wake-up, and it counts no missed one until the
// holder's owner cell is gone too.
func TestView_AHolderWithoutItsQueueCellStillHeadsTheLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, front, mine, held := lineOfTwo(t, lockstep.Exclusive)

		for _, step := range []struct {
			name           string
			v              view
			turns          int
			missed, expect bool
		}{
			{"the entry in front waits", view{queue: []layout.Entry{front, mine}}, 1, false, true},
			{"it holds, queue cell and all", view{queue: []layout.Entry{front, mine}, owners: []layout.Entry{held}}, 1, false, true},
			{"it holds, its queue cell given up", view{queue: []layout.Entry{mine}, owners: []layout.Entry{held}}, 1, false, true},
			{"it released, and no wake-up came", view{queue: []layout.Entry{mine}}, 0, true, false},
		} {
			if got := step.v.turns(a.qcol); got != step.turns {
				t.Errorf("%s: turns = %d, want %d", step.name, got, step.turns)
			}
			if got := a.handoffMissed(step.v); got != step.missed {
				t.Errorf("%s: handoffMissed = %v, want %v", step.name, got, step.missed)
			}
			if a.expect != step.expect {
				t.Errorf("%s: expect = %v, want %v", step.name, a.expect, step.expect)
			}
		}
	})
}

// Behind a compatible entry that goes on to hold and gives its queue cell
// up, a waiter may claim at once; that is no handoff, and no wake-up was
// due for it: no missed wake-up is counted (which would make the waiter
// stop relying on wake-ups, wakehealth.go).
func TestView_AHolderGivingItsQueueCellUpIsNoMissedWakeUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, front, mine, held := lineOfTwo(t, lockstep.IntentShared)
		a.handoffMissed(view{queue: []layout.Entry{front, mine}})
		if a.handoffMissed(view{queue: []layout.Entry{mine}, owners: []layout.Entry{held}}) {
			t.Fatal("a holder that gave its queue cell up counted as a handoff whose wake-up was missed")
		}
		if !a.mayClaim(view{queue: []layout.Entry{mine}, owners: []layout.Entry{held}}) {
			t.Fatal("IS behind an IS holder may not claim: the case this test is about does not arise")
		}
	})
}

// Holders count once each at the head, whatever their cells: an owner's
// handed cell beside its own owner cell, or the cells of a shared owner's
// holders, are one holder.
func TestView_ShedHoldersCountOncePerOwner(t *testing.T) {
	x, is := lockstep.Exclusive, lockstep.IntentShared
	mine := layout.Entry{Kind: layout.Queue, Column: "00000000000000000002/q/w.1", Owner: "w.1", Access: x}
	v := view{queue: []layout.Entry{mine}, owners: []layout.Entry{
		{Kind: layout.Owner, Column: "~o/e/0000000000000001", Owner: "e.1", Access: x},
		{Kind: layout.Owner, Column: layout.HandedColumn("e.1"), Owner: "e.1", Access: x},
	}}
	if got := len(v.shedHolders()); got != 1 {
		t.Fatalf("shedHolders = %d, want 1", got)
	}
	if got := v.turns(mine.Column); got != 1 {
		t.Fatalf("turns = %d, want 1 (next in line)", got)
	}
	// Two readers holding at once are one head of the line, as readers
	// with queue cells are (view.turns).
	r := view{queue: []layout.Entry{mine}, owners: []layout.Entry{
		{Kind: layout.Owner, Column: "~o/a/0000000000000001", Owner: "a.1", Access: is},
		{Kind: layout.Owner, Column: "~o/b/0000000000000001", Owner: "b.1", Access: is},
	}}
	if got := r.turns(mine.Column); got != 1 {
		t.Fatalf("behind two IS holders: turns = %d, want 1", got)
	}
}
