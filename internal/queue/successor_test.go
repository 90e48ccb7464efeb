package queue

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
)

// An exclusive holder names the head of the line as its successor, even a
// waiter in front of its own queue cell: one a hold made by a handoff can
// have (its releaser's read did not show it). Naming the waiter behind
// instead passed that waiter at every handoff of a chain, for ever (the
// short-hold handoff fleet found it: a waiter first in line waited past its
// bound while three processes handed the lock round among themselves). A
// holder in another access wakes the waiter behind it, as before.
func TestView_SuccessorIsTheHeadForAnExclusiveHolder(t *testing.T) {
	q := func(n, owner string, a lockstep.Access) layout.Entry {
		return layout.Entry{Kind: layout.Queue, Column: n + "/q/" + owner, Owner: owner, Access: a}
	}
	ahead := q("00000000000000000001", "p3.1", lockstep.Exclusive)
	mine := q("00000000000000000002", "p0.1", lockstep.Exclusive)
	behind := q("00000000000000000003", "p1.1", lockstep.Exclusive)
	v := view{queue: []layout.Entry{ahead, mine, behind}}
	require.Equal(t, ahead, v.successor(mine.Column, mine.Owner, lockstep.Exclusive))
	require.Equal(t, behind, v.successor(mine.Column, mine.Owner, lockstep.Shared))
	require.Equal(t, behind, view{queue: []layout.Entry{mine, behind}}.successor(mine.Column, mine.Owner, lockstep.Exclusive))
	require.Equal(t, ahead, view{queue: []layout.Entry{ahead, behind}}.successor(mine.Column, mine.Owner, lockstep.Exclusive), "our cell given up at the first renewal")
	require.Equal(t, layout.Entry{}, view{queue: []layout.Entry{mine}}.successor(mine.Column, mine.Owner, lockstep.Exclusive))
	stale := q("00000000000000000000", "p0.1", lockstep.Exclusive) // ours, left behind by a failed delete
	require.Equal(t, behind, view{queue: []layout.Entry{stale, mine, behind}}.successor(mine.Column, mine.Owner, lockstep.Exclusive), "a cell of ours is no waiter")
}

// A retried delete of cells a failed dequeue left behind, when it carries
// our handed column, is a tombstone above every queue-cell write of ours so
// far, those of the place we took since included: a handoff naming one of
// them is dead where it lands, so none may be taken as a grant (the
// short-hold handoff fleet found a waiter holding on such a grant, its
// handed cell dead under the retry's tombstone).
func TestAttempt_RetriedDeleteOfTheHandedColumnForgetsOurWrites(t *testing.T) {
	n := &memNet{handlers: map[string]func([]byte){}}
	l := newHandoffLocker(t, model.New(&clock.Local{}), n, "w", true, nil)
	a := &attempt{l: l.core, owner: "w.1", qcol: "00000000000000000002/q/w.1", ocol: "~o/w/0000000000000001", knobs: &TestingKnobs{}}
	ts := l.core.ts.Next()
	a.sends.note(ts, 1)
	_, ok := a.sends.sentAt(ts)
	require.True(t, ok)
	a.stale = []string{a.qcol}
	a.retryStale(context.Background())
	_, ok = a.sends.sentAt(ts)
	require.True(t, ok, "a retry without the handed column forgets nothing")
	a.stale = []string{a.qcol, layout.HandedColumn(a.owner)}
	a.retryStale(context.Background())
	_, ok = a.sends.sentAt(ts)
	require.False(t, ok, "a write below the retry's tombstone of the handed column is forgotten")
}
