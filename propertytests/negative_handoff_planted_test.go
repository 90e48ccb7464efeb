//go:build lockstep_bugs

package propertytests

// The controls of the handoff (docs/algorithms.md, section
// 4.12; handoff_test.go), run by the plain negative-control command
// (go test -tags lockstep_bugs ./propertytests -run 'Negative|Regressions').
func init() {
	controls = append(controls,
		// The woken waiter counts its lease from its confirmation read,
		// after the handoff's write, instead of from its queue-cell write
		// the releaser read: confirming late, it works beyond a lease
		// window W of the handoff's send (property H1).
		//
		// The shortest schedule: the waiter's poll is answered just before
		// the handoff's write is sent (so no poll shows the handed cell,
		// which would make it claim), the write is acknowledged and the
		// wake-up sent, and then the waiter is not scheduled while time
		// passes — a W (1.25 s here) in all: the wake-up arrives at the
		// first tick and waits. Its confirmation read then succeeds (the
		// defect's lease starts at that read, so the claim-won rule's "in
		// time" always holds), and its first step of work, at once, is
		// more than W after the handoff's send. A correct waiter counts
		// from its queue-cell write, finds its read too late and claims.
		//
		// The random phase from the start of a run almost never hands over
		// (its holders seldom keep their leases to the end of a hold: 0
		// handoffs in 300 random phases, at either weights), so this
		// control starts it at the first handoff of a fair run
		// (fromHandoff; TestNewHandoffFleet_FromTheFirstHandoff runs the
		// same schedules with correct Lockers). The defect also starves
		// the fleet's one waiter without handoffs (handed holds confirmed
		// however late pass the lock round the others) and outlives the
		// handed cell: noLiveness and noOwnerCellCheck leave those to the
		// fleet tests, so the search shrinks towards H1.
		control{name: "HandoffFromRead", fleet: fleetNamed("new/handoff"),
			v: variant{bugs: switches{HandoffFromRead: true}, noFencing: true, noLiveness: true, noOwnerCellCheck: true, fromHandoff: true, weights: &slowWeights}, want: "handoff:"},
		// The releaser grants the lock whatever its lease: a handoff whose
		// write is acknowledged after the releaser's lease window is still
		// sent as a grant (property H3). The shortest schedule is
		// HandoffFromRead's: the handoff's write is sent, time passes
		// before its acknowledgement, and the grant follows it.
		control{name: "GrantWithoutLeaseCheck", fleet: fleetNamed("new/handoff"),
			v: variant{bugs: switches{GrantWithoutLeaseCheck: true}, noFencing: true, noLiveness: true, noOwnerCellCheck: true, fromHandoff: true, weights: &slowWeights}, want: "handoff:"},
		// The releaser names the last waiter its claim saw instead of the
		// next: the waiters in between are bypassed again and again.
		control{name: "HandoffNamesLast", fleet: fleetNamed("new/handoff"),
			v: variant{bugs: switches{HandoffNamesLast: true}, noLeaseCheck: true}, want: "liveness:"},
		// A holder that saw its handed cell leaves that column alone when
		// its first renewal gives its queue cell up: a releaser whose
		// handoff timed out, yet landed, retries it while the holder holds,
		// and property H2 sees a handoff naming a queue-cell write its
		// waiter has deleted, above the waiter's tombstone of its handed
		// column (none). TestNewHandoffFleet_FromTheFirstHandoff found it
		// once in about 11,000 schedules of the correct code before the fix
		// (rapid seed 17342923788810647348), so the searches seldom do (none
		// in four of 3,000 checks each, 56-69 s apiece): the control keeps
		// an exhibit (exhibit_test.go) of 5 actions and runs no search.
		control{name: "HolderKeepsHandedColumn", fleet: fleetNamed("new/handoff"),
			v: variant{bugs: switches{HolderKeepsHandedColumn: true}, noFencing: true, fromHandoff: true, weights: &slowWeights}, want: "handoff:",
			attempts: 2, exhibit: true, exhibitOnly: "the handoff fleet's schedules retry a timed-out handoff after its holder's first renewal about once in 11,000; four searches of 3,000 checks found none"},
	)
}
