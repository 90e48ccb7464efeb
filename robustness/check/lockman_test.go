package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// evs builds lock-manager workers' histories; times in ms.
type evs struct{ l []history.Event }

// acq records an acquisition of id in access by p, waiting from inv to ret,
// with outcome out.
func (h *evs) acq(p, id, access string, inv, ret int64, out history.Outcome) *evs {
	h.l = append(h.l, history.Event{Process: p, Op: history.EvAcquire, ID: id, Access: access,
		InvokeNS: ms(inv), ReturnNS: ms(ret), Outcome: out, Owner: p + "-" + id})
	return h
}

// rel records p's release of id, its Lost() last seen open at valid.
func (h *evs) rel(p, id string, valid, inv, ret int64) *evs {
	h.l = append(h.l, history.Event{Process: p, Op: history.EvRelease, ID: id,
		InvokeNS: ms(inv), ReturnNS: ms(ret), Outcome: history.OK, ValidNS: ms(valid)})
	return h
}

// last edits the latest event.
func (h *evs) last(f func(*history.Event)) *evs {
	f(&h.l[len(h.l)-1])
	return h
}

func lockmanRun(t *testing.T, h *evs, ops []register.Op) (LockmanReport, []Violation) {
	t.Helper()
	for _, e := range h.l {
		require.NoError(t, e.Validate())
	}
	var r Report
	vs := checkLockman(h.l, ops, Options{}, &r)
	return r.Lockman, vs
}

func checkers(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Checker)
	}
	return out
}

// twoHolders: a holds dl-0, b holds dl-1 from 10ms to 1s.
func twoHolders() *evs {
	h := &evs{}
	return h.acq("a", "dl-0", "X", 0, 10, history.OK).acq("b", "dl-1", "X", 0, 10, history.OK)
}

func deadlockOf(a, b string) func(*history.Event) {
	return func(e *history.Event) {
		e.Cycle = []history.CycleMember{{Process: a + ":dl", ID: "dl-0", Access: "X", HeldBy: a + "-dl-0", HeldIn: "X"},
			{Process: b + ":dl", ID: "dl-1", Access: "X", HeldBy: b + "-dl-1", HeldIn: "X"}}
	}
}

func TestDeadlock_ACycleInTheHistoryConfirmsTheError(t *testing.T) {
	h := twoHolders().
		acq("a", "dl-1", "X", 200, 900, history.OK).
		acq("b", "dl-0", "X", 300, 600, history.Deadlock).last(deadlockOf("b", "a")).
		rel("b", "dl-1", 610, 610, 620).rel("a", "dl-1", 950, 950, 960).rel("a", "dl-0", 960, 960, 970)
	r, vs := lockmanRun(t, h, nil)
	assert.Empty(t, vs)
	assert.Equal(t, 1, r.Deadlocks)
	assert.Equal(t, 1, r.Confirmed)
	assert.Equal(t, ms(700), int64(r.LongestWait))
}

func TestDeadlock_AnErrorWithNoCycleIsCaught(t *testing.T) {
	// b waits for a's dl-0, but a waits for nothing: no cycle.
	h := twoHolders().
		acq("b", "dl-0", "X", 300, 600, history.Deadlock).last(deadlockOf("b", "a")).
		rel("b", "dl-1", 610, 610, 620).rel("a", "dl-0", 960, 960, 970)
	r, vs := lockmanRun(t, h, nil)
	require.Equal(t, []string{"deadlock"}, checkers(vs))
	assert.Contains(t, vs[0].Detail, "no cycle")
	assert.Equal(t, 0, r.Confirmed)
}

func TestDeadlock_ACycleThatEndedBeforeTheWaitDoesNotCount(t *testing.T) {
	// a's wait for dl-1 (50..80 ms) ended more than the slack (100 ms)
	// before b's began (300 ms): no instant had both.
	h := twoHolders().
		acq("a", "dl-1", "X", 50, 80, history.OK).
		acq("b", "dl-0", "X", 300, 600, history.Deadlock).last(deadlockOf("b", "a"))
	_, vs := lockmanRun(t, h, nil)
	require.Equal(t, []string{"deadlock"}, checkers(vs))
}

func TestDeadlock_CompatibleHoldsMakeNoEdge(t *testing.T) {
	// a holds dl-0 in S; b asks for it in S: no edge, so no cycle.
	h := (&evs{}).acq("a", "dl-0", "S", 0, 10, history.OK).acq("b", "dl-1", "X", 0, 10, history.OK).
		acq("a", "dl-1", "X", 200, 900, history.OK).
		acq("b", "dl-0", "S", 300, 600, history.Deadlock).last(func(e *history.Event) {
		e.Cycle = []history.CycleMember{{Process: "b:dl", ID: "dl-0", Access: "S", HeldBy: "a", HeldIn: "S"}}
	})
	_, vs := lockmanRun(t, h, nil)
	require.Len(t, vs, 2)
	assert.Contains(t, vs[0].Detail, "a compatible pair")
	assert.Contains(t, vs[1].Detail, "no cycle")
}

func TestDeadlock_AReentrantAcquisitionReportedIsCaught(t *testing.T) {
	h := twoHolders().
		acq("a", "dl-1", "X", 200, 900, history.OK).
		acq("b", "dl-0", "X", 300, 600, history.Deadlock).last(deadlockOf("b", "a")).last(func(e *history.Event) { e.Reentrant = true })
	_, vs := lockmanRun(t, h, nil)
	require.NotEmpty(t, vs)
	assert.Contains(t, vs[0].Detail, "reentrant")
}

// The victim's partner, granted its id as the victim returned, takes it
// again at once (reentrant, within the harness's 100 ms): the reported
// member is the granted wait, not the reentrant one.
func TestDeadlock_AReentrantAcquisitionRightAfterTheGrantIsNotTheMember(t *testing.T) {
	h := twoHolders().
		acq("b", "dl-0", "X", 200, 900, history.Deadlock).last(deadlockOf("b", "a")).
		rel("b", "dl-1", 905, 905, 910).
		acq("a", "dl-1", "X", 200, 920, history.OK).
		acq("a", "dl-1", "X", 920, 921, history.OK).last(func(e *history.Event) { e.Reentrant = true }).
		rel("a", "dl-1", 950, 950, 951).last(func(e *history.Event) { e.Reentrant = true }).
		rel("a", "dl-1", 960, 960, 961).rel("a", "dl-0", 970, 970, 971)
	_, vs := lockmanRun(t, h, nil)
	assert.Empty(t, checkersOf(vs, "deadlock"))
}

func TestDeadlock_IncompatibleHoldsAtOnceAreCaught(t *testing.T) {
	h := (&evs{}).acq("a", "dl-0", "X", 0, 10, history.OK).acq("b", "dl-0", "X", 0, 20, history.OK).
		rel("a", "dl-0", 100, 100, 110).rel("b", "dl-0", 100, 100, 110)
	_, vs := lockmanRun(t, h, nil)
	require.Equal(t, []string{"deadlock"}, checkers(vs))
	// Readers together are fine.
	h = (&evs{}).acq("a", "dl-0", "S", 0, 10, history.OK).acq("b", "dl-0", "S", 0, 20, history.OK).
		rel("a", "dl-0", 100, 100, 110).rel("b", "dl-0", 100, 100, 110)
	_, vs = lockmanRun(t, h, nil)
	assert.Empty(t, vs)
}

// handover: g acquires tx-0 (owner o1, token 7) at 10ms and offers it at
// 50; s adopts from 60 to adopted; g's Lost() was last open at gValid; s
// releases at 500.
func handover(adopted, gValid int64) *evs {
	h := &evs{}
	h.acq("g", "tx-0", "X", 0, 10, history.OK).last(func(e *history.Event) { e.Owner, e.Token = "o1", 7 })
	h.l = append(h.l, history.Event{Process: "g", Op: history.EvShare, ID: "tx-0", InvokeNS: ms(50), ReturnNS: ms(adopted + 1),
		Outcome: history.OK, Owner: "o1", Token: 7, Handover: "g#1"},
		history.Event{Process: "s", Op: history.EvAdopt, ID: "tx-0", InvokeNS: ms(60), ReturnNS: ms(adopted),
			Outcome: history.OK, Owner: "o1", Token: 7, Handover: "g#1"})
	return h.rel("g", "tx-0", gValid, gValid, gValid+5).rel("s", "tx-0", 500, 500, 510)
}

func TestTransfer_AHandoverIsOneHold(t *testing.T) {
	h := handover(100, 120).acq("t", "tx-0", "X", 80, 520, history.OK).last(func(e *history.Event) { e.Owner, e.Token = "o2", 8 }).
		rel("t", "tx-0", 600, 600, 610)
	ops := []register.Op{
		{Seq: 1, Kind: register.WriteFenced, Lock: "tx-0", Process: "g", Token: 7, Prev: 0, Value: 1, Before: 0, Accepted: true},
		{Seq: 2, Kind: register.WriteFenced, Lock: "tx-0", Process: "s", Token: 7, Prev: 1, Value: 2, Before: 1, Accepted: true},
		{Seq: 3, Kind: register.WriteFenced, Lock: "tx-0", Process: "t", Token: 8, Prev: 2, Value: 3, Before: 2, Accepted: true},
	}
	r, vs := lockmanRun(t, h, ops)
	assert.Empty(t, vs)
	assert.Equal(t, 1, r.Offered)
	assert.Equal(t, 1, r.Adopted)
	assert.Equal(t, 3, r.TransferHolds)
	assert.Equal(t, 1, r.SuccessorWrites)
}

func TestTransfer_AThirdHolderInsideTheHandoverIsCaught(t *testing.T) {
	h := handover(100, 120).acq("t", "tx-0", "X", 80, 300, history.OK).last(func(e *history.Event) { e.Owner, e.Token = "o2", 8 }).
		rel("t", "tx-0", 350, 350, 360)
	_, vs := lockmanRun(t, h, nil)
	require.Equal(t, []string{"transfer"}, checkers(vs))
	assert.Contains(t, vs[0].Detail, "adopted g#1")
}

func TestTransfer_AGiverLeavingBeforeTheAdoptIsCaughtThroughTheThird(t *testing.T) {
	// g leaves at 40, before s's Adopt returns at 100; t acquires in the
	// gap (at 60) and still holds while s writes.
	h := handover(100, 40).acq("t", "tx-0", "X", 20, 60, history.OK).last(func(e *history.Event) { e.Owner, e.Token = "o2", 8 }).
		rel("t", "tx-0", 300, 300, 310)
	_, vs := lockmanRun(t, h, nil)
	require.Equal(t, []string{"transfer"}, checkers(vs))
	// Without the third, the gap alone is no violation: the lock was
	// free, and the history shows nobody else holding.
	_, vs = lockmanRun(t, handover(100, 40), nil)
	assert.Empty(t, vs)
}

func TestTransfer_RegisterLostUpdateAndFallingTokensAreCaught(t *testing.T) {
	ops := []register.Op{
		{Seq: 1, Kind: register.WriteFenced, Lock: "tx-0", Process: "t", Token: 8, Prev: 0, Value: 1, Before: 0, Accepted: true},
		{Seq: 2, Kind: register.WriteFenced, Lock: "tx-0", Process: "s", Token: 7, Prev: 0, Value: 1, Before: 1, Accepted: true},
	}
	_, vs := lockmanRun(t, &evs{}, ops)
	require.Len(t, vs, 2)
	assert.Contains(t, vs[0].Detail, "lost update")
	assert.Contains(t, vs[1].Detail, "decreasing")
}

func TestSplitLockmanOps(t *testing.T) {
	rest, lm := splitLockmanOps([]register.Op{{Lock: "lock-0"}, {Lock: "tx-1"}, {Lock: "dl-0"}})
	assert.Len(t, rest, 1)
	assert.Len(t, lm, 2)
}
