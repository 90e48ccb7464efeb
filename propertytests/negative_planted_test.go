//go:build lockstep_bugs

package propertytests

// The controls of the defects black-box tests found (CHANGELOG.md, Earlier
// development). Their defects are switched on through the packages'
// TestingKnobs; these controls run only in the lockstep_bugs test build:
// go test -tags lockstep_bugs ./propertytests/ -run Negative. Each restores
// what users found in released code, which the model checks of that time did
// not find; the widened checks must now catch each one by the intended
// property and shrink it.
func init() {
	controls = append(controls,
		// A lease of TTL/2 at the TTL of 1s the old options accepted: the
		// cells expire before the lease ends, and the harness, judging by the
		// model's whole-second expiry rather than by the lease's arithmetic,
		// sees the holder work after its cells may be gone.
		// ValidFor reaching a TTL past the lease's deadline: a process told
		// how long its lock is safe (lockd's clients are) would work on
		// after its cells may have expired. The valid-for property judges
		// the promise at every work step, against the send of the owner's
		// last acknowledged write.
		control{name: "ValidForPastDeadline", fleet: fleetNamed("new"),
			v: variant{plant: []defect{validForPastDeadline}}, want: "lease: valid-for:"},
		control{name: "HalfTTLLease", fleet: fleetNamed("new"),
			v: variant{plant: []defect{halfTTLLease}}, want: "lease:",
			keep:  "lease-outlives-whole-second-ttl",
			found: "found from outside (by black-box tests of the public API): with TTL 1s a healthy holder's cells expired ~100 ms after its claim and another process acquired while its Lost() was open (49–62 double grants in 10 s on a real node); the model checks of the time judged leases by the lease's own TTL/2 and ran at TTL 6s. Re-found by the negative control HalfTTLLease once the harness judged by the model's whole-second expiry at the smallest accepted TTL; fixed in internal/lease by deriving the window from a cell's sure life, (TTL − 1s − MaxServerSkew)/2, and refusing TTLs that leave less than a second"},
		// Lease deadlines on the wall clock: a holder whose wall clock is
		// stepped back keeps Lost() open while its cells expire.
		control{name: "WallClockLease", fleet: fleetNamed("new"),
			v: variant{plant: []defect{wallClockLease}, weights: &slowWeights, stepFirst: -2 * ttl, noOwnerCellCheck: true}, want: "lease:",
			keep: "lease-on-stepped-wall-clock", attempts: 8, exhibit: true, shortSteps: 20, maxActions: 16,
			found: "found from outside (by black-box tests of the public API): a holder whose wall clock stepped back by 2×TTL, followed by a store outage, kept Lost() open for ~2×TTL while its cells expired and another process acquired; the simulator of the time could not step a wall clock apart from elapsed time. Re-found by the negative control WallClockLease with the wall-clock step fault; fixed by measuring every deadline on Clock.Elapsed (internal/lease.Stamp)"},
		// The token drawn after the claim with no re-check: a holder whose
		// draw is answered after its lease lapsed returns a lock whose token
		// is above its successor's.
		control{name: "UncheckedToken", fleet: fleetNamed("new"),
			v: variant{plant: []defect{uncheckedToken}, noLeaseCheck: true, weights: &faultyWeights}, want: "fencing:",
			keep: "token-drawn-after-lease-lapsed", attempts: 8, exhibit: true,
			found: "found from outside (by black-box tests of the public API): the token was drawn after the claim with no re-check, so a holder that stalled between claim and draw returned with nil error and a token above its successor's; the model checks of the time had no fencing property. Re-found by the negative control UncheckedToken with the fencing property (token order = ownership order, ownership beginning at the winning claim's send); fixed by re-checking the lease after the draw in every mode (internal/fencing)"},
		// A Locker that never forgets an id, and a floor cell without TTL:
		// the lock's partition keeps a live cell forever.
		control{name: "KeepIDState", fleet: fleetNamed("new"),
			v: variant{plant: []defect{keepIDState}, noLeaseCheck: true}, want: "state:",
			keep:  "floor-cell-lives-forever",
			found: "found from outside (by black-box tests of the public API): a Locker kept ~79 bytes per id ever locked and the published floor cell had no TTL, so queue_lock kept a live partition per id forever. Re-found by the negative control KeepIDState with the end-of-run state check; fixed in queuelock (idstate.go: per-id state expires on elapsed time, a janitor sweeps, the floor cell carries a TTL)"},
		// A combined lock whose loss signal forgets its legacy lease: the
		// composition redesign replaced the goroutine merging the two
		// halves' signals with one signal both leases fire; dropping one
		// source must be caught. Only a fault that fails the legacy tables
		// alone for a lease window, while the queue half renews, shows it:
		// the legacy-tables cut (cut_test.go). The holder then works on
		// after its legacy half's cells may be gone (the lease property).
		// Searches miss it often (6 of 6 once, 2 of 3 another time), so
		// it keeps an exhibit of 16 actions (exhibit_test.go).
		control{name: "LegacyLossUnwatched", fleet: fleetNamed("legacy+combined"),
			v: variant{plant: []defect{legacyLossUnwatched}, weights: &cutWeights, longHolds: 8}, want: "lease:",
			attempts: 6, shortSteps: 30, maxActions: 20, exhibit: true},
		// A combined acquisition's overlapped legacy round sending its
		// shadow read and its main re-read together (docs/algorithms.md, 6.1): the
		// one pair of the overlap whose order the legacy argument needs. A
		// main read that overtakes the shadow read misses the main cell of a
		// legacy holder whose shadow cell the shadow read no longer sees.
		// Two legacy processes beside one combined give it more legacy
		// rounds to race; the step-heavy weights, more interleavings.
		control{name: "CombinedOverlapUnsafe", fleet: legacyHeavyMix,
			v: variant{plant: []defect{combinedOverlapUnsafe}, noLeaseCheck: true, noFencing: true, weights: &interleavingWeights}, want: "mutual exclusion:",
			attempts: 6, exhibit: true},
		// Lost trusting the Locker's renewal scheduler to close it at the
		// deadline: while the scheduler's wake-up is not granted (its
		// process paused beyond the TTL, or the simulator busy elsewhere),
		// a holder's Lost stays open after its owner cell expired, which
		// the owner-cell property sees at once. The holder's next work step
		// would fail the lease property, which a search under -race once
		// reported first (work 3.25 s after the last renewal, the owner cell
		// not yet dead), so it is left to the fleets (noLeaseCheck), as the
		// regression seed's replay does.
		control{name: "LostTrustsScheduler", fleet: fleetNamed("new"),
			v: variant{plant: []defect{lostTrustsScheduler}, weights: &slowWeights, noLeaseCheck: true}, want: "ownership:",
			keep: "lost-trusts-the-scheduler", attempts: 8, exhibit: true,
			found: "a planted defect a shared renewal scheduler invites: with one goroutine per Locker watching every deadline, Lost()'s own check of the deadline looks redundant; without it, a holder paused beyond the TTL, or whose scheduler's wake-up was not granted in time, keeps Lost() open after its owner cell expired, and works on. Caught by the owner-cell property (a holder with Lost() open must have a live owner cell); internal/lease keeps the check in Lost and IsLost (doc.go: why the guarantees are unchanged)"},
	)
}

// cutWeights make the legacy-tables cut (cut_test.go) likely and let time
// pass, for a control whose defect shows only when a combined lock's legacy
// half fails alone for a lease window while its queue half renews.
var cutWeights = [numActs]int{actStep: 12, actTick: 6, actNet: 1, actCut: 3}
