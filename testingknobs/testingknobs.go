package testingknobs

import (
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// Lease plants defects of the lease a held lock renews (HalfTTLLease,
// LostTrustsScheduler, RenewFromStart, RemainingPastDeadline). A Locker
// reads it from its TestingKnobs' Lease field.
type Lease = lease.TestingKnobs

// Manager plants defects of the lock manager (groups, hierarchy, masks,
// deadlock detection). A Locker reads it from its TestingKnobs' Manager
// field.
type Manager = manager.TestingKnobs

// Fencing plants the defect of the fencing-token draw (UncheckedToken). A
// Locker reads it from its TestingKnobs' Fencing field.
type Fencing = fencing.TestingKnobs

// Cohort plants the defects of local handoff (ReuseToken, Unbounded;
// docs/algorithms.md §4.15). A migration Locker with Options.LocalHandoff
// reads it from its TestingKnobs' Cohort field.
type Cohort = cohort.TestingKnobs

// LeaseWindow returns the lease window a Locker computes for ttl and
// maxServerSkew, with the lease defects of k (nil: none): how long after a
// winning write's send the holder's Lost stays open without a renewal.
func LeaseWindow(ttl, maxServerSkew time.Duration, k *Lease) time.Duration {
	return lease.Config{TTL: ttl, MaxServerSkew: maxServerSkew, Knobs: k}.Window()
}

// WallClockLease returns a clock that plants the defect wall-clock-lease: a
// Locker given it as its Clock measures lease deadlines on c's wall clock
// instead of its elapsed time, so a wall-clock step back keeps Lost open
// past the cells' expiry.
func WallClockLease(c lockstep.Clock) lockstep.Clock { return lease.WallClock(c) }
