package propertytests

import (
	"context"
	"testing"
	"time"
)

// The cohort-extend fleet: extension at the bound (internal/cohort's
// extend; docs/algorithms.md, section 4.15, Theorem 4b). It is the cohort
// fleet (three processes of two user goroutines on queue Lockers with
// LocalHandoff) whose users of every process but the first idle for
// extendIdle after every second release, holding nothing. While the other
// processes idle, the first one's store hold reaches its bound with a
// goroutine of its own in line and nobody else waiting in the store, and
// is extended; when they return, their waiters are seen at the next bound
// and take the id from the store behind the extended blocks. C1–C3 are
// checked as on the cohort fleet (cohort_test.go): C2 compares the first
// remote grant with the extended block's last grant, and C3 bounds the
// returning waiters' waits with Theorem 4b's extension.

// extendIdle is how long a user of another process than the first idles
// after every second release: the first process's chain passes a bound
// with nobody else waiting and then the next.
func extendIdle() time.Duration { return 3 * (cohortBound + 1) * holdTime() }

var (
	queueCohortExtend = kind{name: "new-cohort-extend", mode: queueCohort.mode, new: queueCohort.new, user: extendUser}
	cohortExtendFleet = fleet{name: "new/cohort-extend", kinds: []kind{queueCohortExtend, queueCohortExtend, queueCohortExtend},
		starvationFree: true, cohort: &cohortSpec{processes: 3, perProcess: 2, bound: cohortBound}, sweepDivisor: 10}
)

// extendUser is harness.user that, on every process but the first,
// idles for extendIdle after every second release instead of thinking.
func extendUser(h *harness, ctx context.Context, pr *proc) {
	h.userPausing(ctx, pr, func(n int) time.Duration {
		if pr.sp.Index != 0 && n%2 == 0 {
			return extendIdle()
		}
		return think
	})
}

// TestNewCohortExtendFleet_ExtendedHoldsYieldToReturningWaiters checks
// C1–C3 with store holds extended past their bound beside every property
// of the "new" fleet.
func TestNewCohortExtendFleet_ExtendedHoldsYieldToReturningWaiters(t *testing.T) {
	checkFleetDepth(t, "new/cohort-extend", variant{}, deepChecks/4)
}
