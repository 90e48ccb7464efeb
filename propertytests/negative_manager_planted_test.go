//go:build lockstep_bugs

package propertytests

// The controls of the lock manager's planted defects (internal/manager's
// TestingKnobs). As those of negative_planted_test.go, these controls run
// only in the lockstep_bugs test build:
//
//	go test -tags lockstep_bugs ./propertytests/ -run Negative/ -v
func init() {
	controls = append(controls,
		// Members taken in the caller's order, each request before its
		// ancestors' intention locks: two groups naming ids in opposite
		// orders (or a descendant's holder waiting for the ancestor whose
		// holder waits for the descendant) each hold one and wait for the
		// other for ever. Caught in the quiet phase by liveness: a waiter
		// stuck beyond its plan's bound (G2), or no acquisition at all
		// (deadlock freedom).
		control{name: "GroupUnordered", fleet: fleetNamed("new/manager"),
			v: variant{plant: []defect{groupUnordered}, noLeaseCheck: true, noFencing: true}, want: "liveness:", exhibit: true},
		// No intention locks on ancestors: a holder of "a/b" and one of
		// "a" share no member and both hold. Caught by access exclusion
		// (G1), which judges a holding by what was asked for, ancestors
		// implied, not by the members taken.
		control{name: "SkipIntention", fleet: fleetNamed("new/manager"),
			v: variant{plant: []defect{skipIntention}, noLeaseCheck: true, noFencing: true}, want: "mutual exclusion:"},
		// Combined takes its queue half in the access asked for, as it
		// first did: readers (or intention locks on one ancestor) holding
		// the queue lock together all contend on the legacy half, which is
		// not FIFO, and one of them waits beyond its plan's bound (G2).
		control{name: "CombinedSharedQueueHalf", fleet: fleetNamed("combined+new/manager"),
			v: variant{plant: []defect{combinedSharedQueueHalf}, noLeaseCheck: true, noFencing: true}, want: "liveness:", exhibit: true},
		// A mask taken in an intention access, as its parent in that
		// access: a mask "a/*" in IS beside a holder of "a/b" in X (IX on
		// "a") both hold, though the mask names "a/b". Caught by access
		// exclusion (G1), which judges a mask by every child it names.
		control{name: "MaskIntention", fleet: fleetNamed("combined+new/manager-mask"),
			v: variant{plant: []defect{maskIntention}, noLeaseCheck: true, noFencing: true}, want: "mutual exclusion:", exhibit: true},
		// A Flat request naming a path taken as one name, without its
		// ancestors' intention locks (the seed's query without
		// HIERARCHY): a flat holder of "a/b" and a holder of "a" in X
		// share no member and both hold. Caught by access exclusion (G1),
		// which reads every request's id as the fleet's Lockers do,
		// whatever its flags.
		control{name: "FlatPaths", fleet: fleetNamed("combined+new/manager-flags"),
			v: variant{plant: []defect{flatPaths}, noLeaseCheck: true, noFencing: true}, want: "mutual exclusion:"},
		// A group returned although a member's lease lapsed while a later
		// member was awaited (internal/manager, "Losing a member"): the
		// lease property refuses a group returned with Lost() closed. Found
		// by CI's rapid fleets before the check existed, through the
		// fencing property (the lapsed member's token was older than that
		// of the process which took its id in between).
		control{name: "GroupReturnsLostMember", fleet: fleetNamed("new/manager"),
			v: variant{plant: []defect{groupReturnsLostMember}, weights: &faultyWeights}, want: "lease:", attempts: 6, exhibit: true, maxActions: 20},
		// Deadlock detection that publishes its waits but never fails one
		// (internal/deadlock): units of the deadlock fleet that took their
		// ids in opposite orders wait for each other until the quiet
		// phase's deadlock-freedom bound.
		control{name: "DeadlockUndetected", fleet: fleetNamed("new/deadlock"),
			v: variant{plant: []defect{deadlockUndetected}, noLeaseCheck: true, noFencing: true}, want: "liveness:"},
		// A victim rule each process computes from its own view (it ranks
		// itself lowest): every member of a cycle takes another for the
		// victim, none fails, and the cycle lasts.
		control{name: "DeadlockVictimUnshared", fleet: fleetNamed("new/deadlock"),
			v: variant{plant: []defect{deadlockVictimUnshared}, noLeaseCheck: true, noFencing: true}, want: "liveness:"},
		// A waiter that fails when it sees a cycle among waits ranked below
		// its own, without being in it: caught by the oracle of true
		// reports, which finds no cycle through it in the history.
		control{name: "DeadlockBystander", fleet: fleetNamed("new/deadlock"),
			v: variant{plant: []defect{deadlockBystander}, noLeaseCheck: true, noFencing: true}, want: "deadlock:"},
		// Records in the access asked, not the one taken (the detector's
		// first version): units of the shared deadlock fleet that hold one
		// id each "Shared" — exclusively, through legacy, combined or a
		// migration Locker in those modes — and wait for the other's show
		// no conflict, so their cycle lasts until the quiet phase's
		// deadlock-freedom bound.
		control{name: "DeadlockPublishAskedAccess", fleet: fleetNamed("legacy+combined/deadlock-shared"),
			v: variant{plant: []defect{publishAskedAccess}, noLeaseCheck: true, noFencing: true}, want: "liveness:"},
	)
}
