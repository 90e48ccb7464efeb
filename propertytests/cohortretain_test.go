package propertytests

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The cohort-retain fleet: retained ownership (queuelock.Options.Retain,
// docs/algorithms.md, section 4.15). Three processes each run one user
// goroutine on a queue Locker with LocalHandoff and Retain, so an Unlock is
// usually followed by a re-lock of the same goroutine within the window,
// granted in memory. Every third release the user idles for
// retainIdle, longer than C3's bound, holding nothing: a retained store
// hold must then yield to the other processes' waiters once it sees them
// (within retainDetection), not keep the id until its user returns. C1–C3
// are checked as on the cohort fleet (cohort_test.go), C3 with the bound
// that retention adds.

// cohortRetain is the fleet's Options.Retain: longer than a look's period
// (the lease's Renew), so that the window alone would not bound the wait.
func cohortRetain() time.Duration { return 4 * renew }

// retainDetection bounds how long after a waiter's queue cell is written a
// retained hold is released: the next look starts within a Renew of the
// previous one's end, and two reads (the look that missed and the one
// that sees it) and the delete take less than a Poll in the quiet phase.
func retainDetection() time.Duration { return renew + poll }

// retainIdle is how long a user of the fleet idles every third release.
func retainIdle() time.Duration { return 2 * (cohortRetainSpec.waitBound() + 2*time.Second) }

var (
	queueCohortRetain = kind{name: "new-cohort-retain", mode: lockstep.ModeNew, user: retainUser,
		new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
			l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
				Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing,
				TestingKnobs: k.queue, LocalHandoff: cohortBound, Retain: cohortRetain()})
			if err != nil {
				return nil, nil, err
			}
			return l, l.Close, nil
		}}
	cohortRetainSpec  = cohortSpec{processes: 3, perProcess: 1, bound: cohortBound, retain: true}
	cohortRetainFleet = fleet{name: "new/cohort-retain", kinds: []kind{queueCohortRetain, queueCohortRetain, queueCohortRetain},
		starvationFree: true, cohort: &cohortRetainSpec, sweepDivisor: 10}
)

// retainUser is harness.user that idles for retainIdle after every third
// release instead of thinking.
func retainUser(h *harness, ctx context.Context, pr *proc) {
	h.userPausing(ctx, pr, func(n int) time.Duration {
		if n%3 == 0 {
			return retainIdle()
		}
		return think
	})
}

// TestNewCohortRetainFleet_RetainedHoldsYieldToRemoteWaiters checks C1–C3
// with retained ownership beside every property of the "new" fleet.
func TestNewCohortRetainFleet_RetainedHoldsYieldToRemoteWaiters(t *testing.T) {
	checkFleetDepth(t, "new/cohort-retain", variant{}, deepChecks/4)
}
