package propertytests

import (
	"fmt"

	"github.com/lockstep-go/lockstep"
	combinedlock "github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The planted defects a run switches on, by the names the controls and the
// regression files use, reach the Lockers of the simulated processes as
// each package's TestingKnobs (one hook per package, set when the Locker is
// built), never through a context.

// switches are the defects a regression file's "bugs" object and a
// control's variant.bugs name: the queue and legacy locks' own.
type switches struct {
	SkipOwnerReread           bool `json:",omitempty"`
	ReuseTombstonedTimestamp  bool `json:",omitempty"`
	QueueCellsWithoutTTL      bool `json:",omitempty"`
	ReuseOwnerAfterStoreError bool `json:",omitempty"`
	NoRoundDeadline           bool `json:",omitempty"`
	IgnoreContentionHint      bool `json:",omitempty"`
	NoFloorLag                bool `json:",omitempty"`
	IgnorePublishedFloor      bool `json:",omitempty"`
	WakeGrants                bool `json:",omitempty"`
	WakeOnly                  bool `json:",omitempty"`
	ReaderBypass              bool `json:",omitempty"`
	HandoffFromRead           bool `json:",omitempty"`
	HandoffNamesLast          bool `json:",omitempty"`
	GrantWithoutLeaseCheck    bool `json:",omitempty"`
	HolderKeepsQueueCell      bool `json:",omitempty"`
	HolderKeepsHandedColumn   bool `json:",omitempty"`
	SkipIntentionRange        bool `json:",omitempty"`
	KeepBelowEvidence         bool `json:",omitempty"`
	RecordNoEvidence          bool `json:",omitempty"`
	AheadPastWindow           bool `json:",omitempty"`
}

// union returns the switches on in s or in o.
func (s switches) union(o switches) switches {
	return switches{
		SkipOwnerReread:           s.SkipOwnerReread || o.SkipOwnerReread,
		ReuseTombstonedTimestamp:  s.ReuseTombstonedTimestamp || o.ReuseTombstonedTimestamp,
		QueueCellsWithoutTTL:      s.QueueCellsWithoutTTL || o.QueueCellsWithoutTTL,
		ReuseOwnerAfterStoreError: s.ReuseOwnerAfterStoreError || o.ReuseOwnerAfterStoreError,
		NoRoundDeadline:           s.NoRoundDeadline || o.NoRoundDeadline,
		IgnoreContentionHint:      s.IgnoreContentionHint || o.IgnoreContentionHint,
		NoFloorLag:                s.NoFloorLag || o.NoFloorLag,
		IgnorePublishedFloor:      s.IgnorePublishedFloor || o.IgnorePublishedFloor,
		WakeGrants:                s.WakeGrants || o.WakeGrants,
		WakeOnly:                  s.WakeOnly || o.WakeOnly,
		ReaderBypass:              s.ReaderBypass || o.ReaderBypass,
		HandoffFromRead:           s.HandoffFromRead || o.HandoffFromRead,
		HandoffNamesLast:          s.HandoffNamesLast || o.HandoffNamesLast,
		GrantWithoutLeaseCheck:    s.GrantWithoutLeaseCheck || o.GrantWithoutLeaseCheck,
		HolderKeepsQueueCell:      s.HolderKeepsQueueCell || o.HolderKeepsQueueCell,
		HolderKeepsHandedColumn:   s.HolderKeepsHandedColumn || o.HolderKeepsHandedColumn,
		SkipIntentionRange:        s.SkipIntentionRange || o.SkipIntentionRange,
		KeepBelowEvidence:         s.KeepBelowEvidence || o.KeepBelowEvidence,
		RecordNoEvidence:          s.RecordNoEvidence || o.RecordNoEvidence,
		AheadPastWindow:           s.AheadPastWindow || o.AheadPastWindow,
	}
}

// defect names one of the defects a regression file's "plant" list and a
// control's variant.plant name: those of the shared lease, fencing and
// lock-manager code, of the combined and migration layers, and the queue
// lock's that restore bugs found in released code. They run the fleets at
// the smallest TTL the options then accept (timing_test.go).
type defect string

const (
	halfTTLLease            defect = "half-ttl-lease"
	wallClockLease          defect = "wall-clock-lease"
	uncheckedToken          defect = "unchecked-token"
	staleOwnerColumn        defect = "stale-owner-column"
	keepIDState             defect = "keep-id-state"
	legacyLossUnwatched     defect = "legacy-loss-unwatched"
	skipForeignCells        defect = "skip-foreign-cells"
	drainSkipsRecheck       defect = "drain-skips-recheck"
	lostTrustsScheduler     defect = "lost-trusts-scheduler"
	renewFromStart          defect = "renew-from-start"
	censusUnbound           defect = "census-unbound"
	combinedOverlapUnsafe   defect = "combined-overlap-unsafe"
	groupUnordered          defect = "group-unordered"
	skipIntention           defect = "skip-intention"
	maskIntention           defect = "mask-intention"
	flatPaths               defect = "flat-paths"
	combinedSharedQueueHalf defect = "combined-shared-queue-half"
	retryNeedsFreeID        defect = "retry-needs-free-id"
	groupReturnsLostMember  defect = "group-returns-lost-member"
	deadlockUndetected      defect = "deadlock-undetected"
	deadlockVictimUnshared  defect = "deadlock-victim-unshared"
	deadlockBystander       defect = "deadlock-bystander"
	publishAskedAccess      defect = "publish-asked-access"
	acceptAnyLevels         defect = "accept-any-levels"
	acceptRemoteCoordinator defect = "accept-remote-coordinator"
	adoptWithoutWitness     defect = "adopt-without-witness"
	shareStopsGiver         defect = "share-stops-giver"
	adoptWithoutCensus      defect = "adopt-without-census"
	validForPastDeadline    defect = "valid-for-past-deadline"
	cohortReuseToken        defect = "cohort-reuse-token"
	cohortUnbounded         defect = "cohort-unbounded"
	cohortUnreservedBlock   defect = "cohort-unreserved-block"
	cohortRetainIgnores     defect = "cohort-retain-ignores-waiters"
	cohortHandOnShared      defect = "cohort-hand-on-shared"
	cohortExtendUnlooked    defect = "cohort-extend-unlooked"
	cohortExtendUnreserved  defect = "cohort-extend-unreserved"
	cohortExtendOnFirstLook defect = "cohort-extend-on-first-look"
	aheadBeforeAdmission    defect = "ahead-before-admission"
)

// knobs are the TestingKnobs one simulated process builds its Lockers with.
// A nil pointer is no defect in that package.
type knobs struct {
	queue     *queuelock.TestingKnobs
	legacy    *shadowlock.TestingKnobs
	combined  *combinedlock.TestingKnobs
	migration *migration.TestingKnobs
	// sim plants defects in the simulated stores (model/sim's
	// TestingKnobs): the defects accept-any-levels and
	// accept-remote-coordinator.
	sim *sim.TestingKnobs
	// wallClock measures the Lockers' leases on the wall clock
	// (lease.WallClock): the defect wall-clock-lease.
	wallClock bool
	// evidence is queuelock.Options.Evidence of the process's queue
	// Lockers (variant.evidence): a setting, not a defect, carried here
	// because it reaches the Lockers the same way.
	evidence queuelock.Evidence
}

// clock returns the clock a process's Lockers get: c itself, or c seen
// through lease.WallClock.
func (k knobs) clock(c lockstep.Clock) lockstep.Clock {
	if k.wallClock {
		return lease.WallClock(c)
	}
	return c
}

// knobsFor returns the knobs that switch on s and ds. An unknown defect
// name (a regression file's typo, say) is an error.
func knobsFor(s switches, ds []defect) (knobs, error) {
	var q queuelock.TestingKnobs
	var g shadowlock.TestingKnobs
	var c combinedlock.TestingKnobs
	var m migration.TestingKnobs
	var ls lease.TestingKnobs
	var mg manager.TestingKnobs
	var f fencing.TestingKnobs
	var sk sim.TestingKnobs
	var co cohort.TestingKnobs
	var k knobs
	q.SkipOwnerReread, q.ReuseTombstonedTimestamp, q.QueueCellsWithoutTTL = s.SkipOwnerReread, s.ReuseTombstonedTimestamp, s.QueueCellsWithoutTTL
	q.IgnoreContentionHint, q.NoFloorLag, q.IgnorePublishedFloor = s.IgnoreContentionHint, s.NoFloorLag, s.IgnorePublishedFloor
	q.WakeGrants, q.WakeOnly, q.ReaderBypass = s.WakeGrants, s.WakeOnly, s.ReaderBypass
	q.HandoffFromRead, q.HandoffNamesLast, q.HolderKeepsQueueCell = s.HandoffFromRead, s.HandoffNamesLast, s.HolderKeepsQueueCell
	q.HolderKeepsHandedColumn, q.SkipIntentionRange = s.HolderKeepsHandedColumn, s.SkipIntentionRange
	q.GrantWithoutLeaseCheck = s.GrantWithoutLeaseCheck
	q.KeepBelowEvidence, q.RecordNoEvidence, q.AheadPastWindow = s.KeepBelowEvidence, s.RecordNoEvidence, s.AheadPastWindow
	g.ReuseOwnerAfterStoreError, g.NoRoundDeadline = s.ReuseOwnerAfterStoreError, s.NoRoundDeadline
	for _, d := range ds {
		switch d {
		case halfTTLLease:
			ls.HalfTTLLease = true
		case lostTrustsScheduler:
			ls.LostTrustsScheduler = true
		case renewFromStart:
			ls.RenewFromStart = true
		case validForPastDeadline:
			ls.RemainingPastDeadline = ttl
		case wallClockLease:
			k.wallClock = true
		case uncheckedToken:
			f.UncheckedToken = true
		case staleOwnerColumn:
			q.StaleOwnerColumn = true
		case keepIDState:
			q.KeepIDState = true
		case skipForeignCells:
			q.SkipForeignCells = true
		case retryNeedsFreeID:
			q.RetryNeedsFreeID = true
		case legacyLossUnwatched:
			g.LegacyLossUnwatched = true
		case combinedOverlapUnsafe:
			g.CombinedOverlapUnsafe = true
		case combinedSharedQueueHalf:
			c.CombinedSharedQueueHalf = true
		case drainSkipsRecheck:
			m.DrainSkipsRecheck = true
		case censusUnbound:
			m.CensusUnbound = true
		case groupUnordered:
			mg.GroupUnordered = true
		case skipIntention:
			mg.SkipIntention = true
		case maskIntention:
			mg.MaskIntention = true
		case flatPaths:
			mg.FlatPaths = true
		case groupReturnsLostMember:
			mg.GroupReturnsLostMember = true
		case deadlockUndetected:
			mg.Deadlock.Undetected = true
		case deadlockVictimUnshared:
			mg.Deadlock.VictimUnshared = true
		case deadlockBystander:
			mg.Deadlock.Bystander = true
		case publishAskedAccess:
			mg.PublishAskedAccess = true
		case adoptWithoutWitness:
			q.AdoptWithoutWitness = true
		case shareStopsGiver:
			q.ShareStopsGiver = true
		case adoptWithoutCensus:
			m.AdoptWithoutCensus = true
		case aheadBeforeAdmission:
			m.AheadBeforeAdmission = true
		case cohortReuseToken:
			co.ReuseToken = true
		case cohortUnbounded:
			co.Unbounded = true
		case cohortUnreservedBlock:
			co.UnreservedBlock = true
		case cohortRetainIgnores:
			co.RetainIgnoresWaiters = true
		case cohortHandOnShared:
			co.HandOnShared = true
		case cohortExtendUnlooked:
			co.ExtendUnlooked = true
		case cohortExtendUnreserved:
			co.ExtendUnreserved = true
		case cohortExtendOnFirstLook:
			co.ExtendOnFirstLook = true
		case acceptAnyLevels:
			sk.AcceptAnyLevels = true
		case acceptRemoteCoordinator:
			sk.AcceptRemoteCoordinator = true
		default:
			return knobs{}, fmt.Errorf("unknown planted defect %q: the names are the defect constants of propertytests/knobs_test.go", d)
		}
	}
	if sk != (sim.TestingKnobs{}) {
		k.sim = &sk
	}
	if ls != (lease.TestingKnobs{}) {
		q.Lease, g.Lease = &ls, &ls
	}
	if f != (fencing.TestingKnobs{}) {
		q.Fencing, g.Fencing, c.Fencing, m.Fencing = &f, &f, &f, &f
	}
	if mg != (manager.TestingKnobs{}) {
		q.Manager, g.Manager, c.Manager, m.Manager = &mg, &mg, &mg, &mg
	}
	if co != (cohort.TestingKnobs{}) {
		q.Cohort, m.Cohort = &co, &co
	}
	if c != (combinedlock.TestingKnobs{}) {
		m.Combined = &c
	}
	k.queue, k.legacy, k.combined, k.migration = nonZero(q), nonZero(g), nonZero(c), nonZero(m)
	return k, nil
}

// nonZero returns &v, or nil for the zero value.
func nonZero[K comparable](v K) *K {
	var zero K
	if v == zero {
		return nil
	}
	return &v
}
