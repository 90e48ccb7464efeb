package propertytests

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	combinedlock "github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Timing of every simulated fleet. The fleets run at the smallest TTL the
// options accept for the servers' skew (timing.go): there the lease window
// is tightest against the true life of a cell, which the checks measure on
// their own (harness.go), so a lease that outlives its cells is caught.
var ttl, renew = smallestTimings(knobs{})

const (
	poll        = 500 * time.Millisecond
	clientSkew  = 250 * time.Millisecond // ε: bound on a process clock's offset
	replicaSkew = 250 * time.Millisecond // bound on a replica clock's offset
	// maxServerSkew is the options' MaxServerSkew: how far apart two
	// replicas' clocks can read.
	maxServerSkew = 2 * replicaSkew
	// maxClockSkew is queuelock.Options.MaxClockSkew: how far apart two
	// process clocks can read.
	maxClockSkew = 2 * clientSkew
	workSteps    = 2                      // a holder's work, in steps
	workStep     = time.Second            // one step of work
	think        = 100 * time.Millisecond // pause between a release and the next Lock
	lockID       = "L"
)

// kind is one lock mode a simulated process can run.
type kind struct {
	name string
	mode lockstep.Mode
	new  func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error)
	// user, when set, is what the process does with its locker instead of
	// harness.user (a correct lock user), e.g. an arrival storm
	// (storm_test.go). It returns when ctx ends (the process crashed).
	user func(h *harness, ctx context.Context, pr *proc)
	// storm marks an arrival storm's process: its Lockers get
	// variant.stormBugs besides variant.bugs.
	storm bool
	// newWake, when set, builds the locker instead of new, with the
	// harness's wake-up network (wake_test.go).
	newWake func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs, n *wakeNet) (lockstep.Locker, func(context.Context) error, error)
	// others, when not nil, are what the other user goroutines of a cohort
	// fleet's process of this kind run, one goroutine each (none for an
	// empty slice), instead of cohortSpec.perProcess − 1 more of user
	// (cohorttransfer_test.go).
	others []func(h *harness, ctx context.Context, pr *proc)
	// process, when set, names the simulated process instead of p<i>: the
	// phase controller of a fleet, which only controllerName may be
	// (migtransfer_test.go).
	process string
}

var (
	legacy = kind{name: "legacy", mode: lockstep.ModeLegacy, new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
		l, err := shadowlock.New(p.Store(), &shadowlock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Clock: k.clock(p.Clock()),
			ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing, TestingKnobs: k.legacy})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Close, nil
	}}
	queue = kind{name: "new", mode: lockstep.ModeNew, new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
		l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
			Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing, Evidence: k.evidence, TestingKnobs: k.queue})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Close, nil
	}}
	// combined takes the queue lock, then the legacy lock (docs/algorithms.md, section 6); both
	// halves use the process's name, as combined.Options asks.
	combined = kind{name: "combined", mode: lockstep.ModeCombined, new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
		l, err := combinedlock.New(p.Store(), &combinedlock.Options{
			Queue: &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
				Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), TestingKnobs: k.queue},
			Legacy: &shadowlock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Clock: k.clock(p.Clock()),
				ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), TestingKnobs: k.legacy},
			Fencing:      fencing,
			TestingKnobs: k.combined,
		})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Close, nil
	}}
)

// fleet is the set of modes a simulated fleet runs, one process each.
type fleet struct {
	name  string
	kinds []kind
	// starvationFree: every waiter acquires within the bound, with bounded
	// bypass (otherwise only some waiter must: deadlock freedom).
	starvationFree bool
	// extraFault, when set, is one more random-phase fault of this fleet
	// (e.g. flipping a process's mode flag); it reports false when not
	// applicable now.
	extraFault func(*harness, sim.Chooser) bool
	// setup, when set, prepares the cluster before any process starts (e.g.
	// writes the fleet phase that migration.Locker processes read).
	setup func(*sim.Sim) error
	// sweepDivisor, when set, has the seeded sweep run only one in
	// sweepDivisor of its schedules on this fleet, whose schedules each cost
	// several of a plain fleet's.
	sweepDivisor int
	// shareFirst makes the second process a second user goroutine of the
	// first, on the same Locker: goroutines of one process contending for
	// one id (docs/algorithms.md, section 4.7), whose acquisitions share the Locker's
	// owner cell.
	shareFirst bool
	// groups, when set, makes this a lock-manager fleet: its processes take
	// lock groups over a hierarchical id space (groupfleet_test.go).
	groups *groupSpec
	// dc, when set, runs the fleet on a cluster of two data centres, its
	// processes in both, at the levels and in the scope it says (dc_test.go).
	dc *dcSpec
	// deadlock makes this the deadlock fleet (deadlockfleet_test.go): its
	// processes take nested locks in random orders, with detection on.
	deadlock bool
	// transfer makes this the transfer fleet (transferfleet_test.go): its
	// givers hand held locks over to its last process, the successor.
	transfer bool
	// cohort, when set, runs several user goroutines per process on its
	// Locker, with local handoff on (cohort_test.go).
	cohort *cohortSpec
}

// fleets are the fleets the property tests check. A mixed fleet is one more
// line, e.g. {name: "legacy+combined", kinds: []kind{legacy, combined, combined}}.
// (The {legacy, new} fleet, which must break, is a negative control.)
var fleets = append([]fleet{
	{name: "legacy", kinds: []kind{legacy, legacy, legacy}},
	{name: "new", kinds: []kind{queue, queue, queue}, starvationFree: true},
	// Two goroutines of p0 on one queue Locker beside a third process: an
	// acquisition must never touch the owner cell its Locker's next
	// acquisition holds.
	{name: "new/two-goroutines", kinds: []kind{queue, queue, queue}, starvationFree: true, shareFirst: true},
	// The rollout fleets (docs/algorithms.md, section 7): combined beside either other mode.
	{name: "legacy+combined", kinds: []kind{legacy, combined, combined}},
	{name: "combined+new", kinds: []kind{combined, combined, queue}, starvationFree: true},
	// Every process a migration.Locker whose flag the random phase flips
	// between the two modes (modes_test.go), in a phase allowing both.
	{name: "legacy+combined/switching", kinds: []kind{legacyOrCombined, legacyOrCombined, legacyOrCombined}, extraFault: switchMode, setup: phaseAt(lockstep.ModeCombined)},
	{name: "combined+new/switching", kinds: []kind{combinedOrNew, combinedOrNew, combinedOrNew}, starvationFree: true, extraFault: switchMode, setup: phaseAt(lockstep.ModeNew)},
	// Two honest users beside an arrival storm: two processes whose Lock
	// calls are cancelled one after another (storm_test.go). A schedule
	// costs about eight of "new" (the storm's Locks and their tombstones).
	{name: "new+storm", kinds: []kind{queue, queue, storm, varyingStorm}, starvationFree: true, sweepDivisor: 20},
	// Wake-ups on release, lost, duplicated, delayed, reordered and forged
	// by the net action (wake_test.go), beside a process without them (an
	// old binary, or one whose port is unreachable).
	{name: "new/wake", kinds: []kind{queueWake, queueWake, queue}, starvationFree: true},
	// The handoff (docs/algorithms.md, section 4.12) over
	// the same wake-up network: releasers hand the lock to the next waiter
	// in one request; the third process hands nothing but reads handed
	// cells (a rollout half done).
	{name: "new/handoff", kinds: []kind{queueHandoff, queueHandoff, queueHandoff, queueWake}, starvationFree: true},
}, append(dcFleets, append(managerFleets, deadlockFleet, transferFleet, deadlockSharedFleet, cohortFleet, cohortSwitchingFleet, cohortRetainFleet, cohortExtendFleet, cohortTransferFleet)...)...)

func fleetNamed(name string) fleet {
	for _, f := range fleets {
		if f.name == name {
			return f
		}
	}
	panic("no fleet " + name)
}
