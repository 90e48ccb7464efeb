package propertytests

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Hand-made handovers for the transfer fleet's release bookkeeping
// (transferfleet_test.go): when the giver leaves while the successor's
// Adopt is in flight, or its token still waits in the box, the lock is
// released only if that Adopt fails. The
// ownership property (ownership_test.go) leans on h.released: a wrong
// "released" flags the adopter's renewals as rewrites of a released lock,
// a missing one lets a zombie write pass.

func newTransferHarness(holders int, adopting bool) *harness {
	h := &harness{released: map[string]bool{}, tr: newTransferState()}
	h.tr.holders["p0.1"] = holders
	if adopting {
		h.tr.writers["p2 p0.1"] = 1
	}
	return h
}

func TestTransferRelease_TheLastHolderReleasesWhenNoAdoptIsInFlight(t *testing.T) {
	h := newTransferHarness(1, false)
	require.False(t, h.stillShared("p0.1"))
}

func TestTransferRelease_AnotherHolderKeepsTheLock(t *testing.T) {
	h := newTransferHarness(2, true)
	require.True(t, h.stillShared("p0.1"))
	require.Empty(t, h.tr.releaseAfterAdopt, "a holder remains: nothing is left to the Adopt")
}

// adoptAnswers are the two ways an Adopt the release waits for can end, and
// whether the lock is then released.
var adoptAnswers = []struct {
	name     string
	err      error
	released bool
}{{"adopted", nil, false}, {"refused", errors.New("no witness"), true}}

func TestTransferRelease_AnAdoptInFlightDecides(t *testing.T) {
	for _, c := range adoptAnswers {
		t.Run(c.name, func(t *testing.T) {
			h := newTransferHarness(1, true)
			require.True(t, h.stillShared("p0.1"), "the giver left beside an Adopt in flight")
			require.False(t, h.released["p0.1"])
			h.adoptAnswered("p2", "p0.1", c.err)
			require.Equal(t, c.released, h.released["p0.1"])
			require.Empty(t, h.tr.releaseAfterAdopt)
		})
	}
}

func TestTransferRelease_ALeaveThatDeletedTheQueueCellReleases(t *testing.T) {
	h := newTransferHarness(1, true)
	h.leaveBegins("p0.1")
	h.noteQueueDeletes(&sim.Yield{Kind: sim.Put, Table: queuelock.DefaultTable, Columns: []string{"~o/p0/1"}})
	require.False(t, h.tr.queueDeleted["p0.1"], "an owner cell's delete is no queue cell's")
	h.noteQueueDeletes(&sim.Yield{Kind: sim.Put, Table: queuelock.DefaultTable, Columns: []string{layout.QueueColumn(1, "p0.1")}})
	require.False(t, h.stillShared("p0.1"), "the leave deleted the queue cell: released, whatever the Adopt answers")
	require.Empty(t, h.tr.releaseAfterAdopt)
}

func TestTransferRelease_AQueueCellDeletedBeforeTheLeaveIsNoRelease(t *testing.T) {
	h := newTransferHarness(1, true)
	// The holder's first renewal deletes its queue cell (section 4.13).
	h.noteQueueDeletes(&sim.Yield{Kind: sim.Put, Table: queuelock.DefaultTable, Columns: []string{layout.QueueColumn(1, "p0.1")}})
	h.leaveBegins("p0.1")
	require.True(t, h.stillShared("p0.1"), "the leave sent no queue-cell delete beside an Adopt in flight: the Adopt decides")
}

func TestTransferRelease_AnAdoptAnsweredAfterNoLeaveChangesNothing(t *testing.T) {
	h := newTransferHarness(1, true)
	h.adoptAnswered("p2", "p0.1", errors.New("no witness"))
	require.False(t, h.released["p0.1"], "the giver still holds: its own leave releases")
	require.Equal(t, 2, h.tr.writers["p2 p0.1"])
}

func TestTransferRelease_ATokenStillInTheBoxDefersTheRelease(t *testing.T) {
	for _, c := range adoptAnswers {
		t.Run(c.name, func(t *testing.T) {
			// A giver that crashed while sharing: its leave sends nothing,
			// and the successor has not taken the token yet.
			h := newTransferHarness(1, false)
			h.tr.box = &handover{lock: fakeLock{owner: "p0.1"}}
			h.leaveBegins("p0.1")
			require.True(t, h.stillShared("p0.1"), "the token may still be adopted beside the cells the leave kept")
			require.False(t, h.released["p0.1"])
			h.tr.box, h.tr.writers["p2 p0.1"] = nil, 1 // the successor takes it
			h.adoptAnswered("p2", "p0.1", c.err)
			require.Equal(t, c.released, h.released["p0.1"])
		})
	}
	// The leave deleted the queue cell: released at once, token or not.
	h := newTransferHarness(1, false)
	h.tr.box = &handover{lock: fakeLock{owner: "p0.1"}}
	h.leaveBegins("p0.1")
	h.noteQueueDeletes(&sim.Yield{Kind: sim.Put, Table: queuelock.DefaultTable, Columns: []string{layout.QueueColumn(1, "p0.1")}})
	require.False(t, h.stillShared("p0.1"))
	// Another owner's token in the box defers nothing.
	h = newTransferHarness(1, false)
	h.tr.box = &handover{lock: fakeLock{owner: "p1.1"}}
	require.False(t, h.stillShared("p0.1"))
}

// fakeLock is a handover's lock as the bookkeeping sees it: an owner.
type fakeLock struct {
	lockstep.Lock
	owner string
}

func (l fakeLock) Owner() string { return l.owner }
