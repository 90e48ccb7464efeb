//go:build lockstep_bugs

package propertytests

// The controls of local handoff's planted defects (internal/cohort's
// TestingKnobs), on the cohort fleets (cohort_test.go, cohortretain_test.go,
// cohorttransfer_test.go). As those of
// negative_planted_test.go, they run only in the lockstep_bugs test build:
//
//	go test -tags lockstep_bugs ./propertytests/ -run 'Negative/Cohort' -v
func init() {
	controls = append(controls,
		// A local grant that keeps the previous holder's token: two
		// successive holders carry one token. Caught by C2, tokens strictly
		// increasing in grant order (the ownership-order property cannot
		// see it: the two holders share the store hold's owner and claim).
		control{name: "CohortReuseToken", fleet: fleetNamed("new/cohort"),
			v: variant{plant: []defect{cohortReuseToken}, noLeaseCheck: true}, want: "fencing:"},
		// Local handoff with the bound ignored: while a goroutine of the
		// holding process waits, the store hold never leaves it, and the
		// other processes' waiters starve. Caught by C3 in the quiet phase.
		control{name: "CohortUnbounded", fleet: fleetNamed("new/cohort"),
			v: variant{plant: []defect{cohortUnbounded}, noLeaseCheck: true, noFencing: true}, want: "liveness:"},
		// A store acquisition that reserves one token but grants the next
		// ones in memory: the global cell holds only the first, so a remote
		// successor whose clock reads below the block draws a token a local
		// holder already carried. Caught by C2, and by property 4a,
		// reserved tokens (reserved_test.go), at the first grant in memory.
		control{name: "CohortUnreservedBlock", fleet: fleetNamed("new/cohort"),
			v: variant{plant: []defect{cohortUnreservedBlock}}, want: "fencing:"},
		// A retained store hold that ignores the other processes' waiters
		// (and its window): while its user idles, holding nothing, the id
		// stays with its process. Caught by C3 in the quiet phase.
		control{name: "CohortRetainIgnoresWaiters", fleet: fleetNamed("new/cohort-retain"),
			v: variant{plant: []defect{cohortRetainIgnores}, noLeaseCheck: true, noFencing: true}, want: "liveness:", exhibit: true},
		// A shared grant whose Unlock still hands the store hold to the
		// goroutine waiting behind it in its process, or, with nobody
		// waiting, keeps it for the process's next Lock: that goroutine
		// holds the id in memory, under the shared owner, while the
		// adopter still works. Caught by C1 with sharing
		// (cohorttransfer_test.go), which counts the adopter and the giver
		// as one holding and the grant beside them as another: by either
		// branch on the first check, shrunk to 0 actions (the quiet phase).
		control{name: "CohortHandOnShared", fleet: fleetNamed("new/cohort-transfer"),
			v: variant{plant: []defect{cohortHandOnShared}, noLeaseCheck: true, noFencing: true}, want: "mutual exclusion:"},
		// A store hold extended at its bound without looking at the store:
		// while a goroutine of the holding process waits, the hold goes on
		// with fresh blocks and the other processes' waiters starve.
		// Caught by C3 in the quiet phase.
		control{name: "CohortExtendUnlooked", fleet: fleetNamed("new/cohort"),
			v: variant{plant: []defect{cohortExtendUnlooked}, noLeaseCheck: true}, want: "liveness:"},
		// A store hold extended at its bound with a draw of one token, the
		// grants after it taking the next values unreserved: the global cell
		// holds only the drawn value, so a remote successor whose clock
		// reads below the extended block could draw a token a local holder
		// already carried. C2 sees that only when such a draw does collide,
		// which needs the extending process's wall clock to lead the
		// successor's by more than the extended block's holds, and the
		// fleet's extensions come in the quiet phase, where clocks are
		// within ±clientSkew. Caught by property 4a, reserved tokens
		// (reserved_test.go): the block's second grant carries a token above
		// the global time cell.
		control{name: "CohortExtendUnreserved", fleet: fleetNamed("new/cohort-extend"),
			v: variant{plant: []defect{cohortExtendUnreserved}}, want: "fencing:"},
		// A store hold whose later blocks are extended on its first look's
		// answer, with no look of their own: a waiter of another process
		// that enqueued after that look is never seen while a goroutine of
		// the holding process waits, and starves. On the cohort-extend
		// fleet, whose other processes idle, so that a first look sees
		// nobody (on new/cohort every process contends, and a hold whose
		// first look saw a waiter is released). Caught by C3 in the quiet
		// phase, by the exhibit (a search found it once in three).
		control{name: "CohortExtendOnFirstLook", fleet: fleetNamed("new/cohort-extend"),
			v: variant{plant: []defect{cohortExtendOnFirstLook}, noLeaseCheck: true}, want: "liveness:",
			exhibit: true, maxActions: 45, exhibitOnly: "the searches reach it too seldom: one of three found a counterexample " +
				"(45 actions after minimizing) in 8 minutes: the holding process's chain of local waiters must outlast C3's bound " +
				"after a first look that saw nobody"},
	)
}
