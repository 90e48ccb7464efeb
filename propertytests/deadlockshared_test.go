package propertytests

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	combinedlock "github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The shared deadlock fleet (docs/algorithms.md, section 8.5): the deadlock
// fleet's units of work (deadlockfleet_test.go), but each asks for its two
// ids Shared, through Lockers that take every request exclusively — a
// legacy Locker, a combined Locker, and a migration Locker whose flag is
// legacy or combined and which the random phase flips between the two
// (switchMode), so that its mode is chosen per acquisition, a unit's two
// locks sometimes in different modes. Shared requests would never wait for
// each other; here they do, so every cycle exists only because of the
// exclusive taking, and is broken only if the waits and holdings are
// published in the access really taken (manager.Step.Take). The
// properties are the deadlock fleet's: exclusion (two holders of one id
// never at once: each is exclusive), no permanent deadlock in the quiet
// phase, and ErrDeadlock only when the recorded history shows a cycle —
// the oracle judging conflicts by the access each Locker really takes
// (takenIn), Exclusive here.
//
// Its control (negative_manager_planted_test.go): DeadlockPublishAskedAccess,
// caught by deadlock freedom.
var (
	legacyDetectingShared = kind{name: "legacy/deadlock-shared", mode: lockstep.ModeLegacy, user: nestedSharedUser,
		new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
			l, err := shadowlock.New(p.Store(), &shadowlock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Clock: k.clock(p.Clock()),
				ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing,
				Deadlock: &lockstep.DeadlockDetection{}, TestingKnobs: k.legacy})
			if err != nil {
				return nil, nil, err
			}
			return l, l.Close, nil
		}}
	combinedDetectingShared = kind{name: "combined/deadlock-shared", mode: lockstep.ModeCombined, user: nestedSharedUser,
		new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
			l, err := combinedlock.New(p.Store(), &combinedlock.Options{
				Queue: &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
					Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), TestingKnobs: k.queue},
				Legacy: &shadowlock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Clock: k.clock(p.Clock()),
					ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), TestingKnobs: k.legacy},
				Fencing:      fencing,
				Deadlock:     &lockstep.DeadlockDetection{},
				TestingKnobs: k.combined,
			})
			if err != nil {
				return nil, nil, err
			}
			return l, l.Close, nil
		}}
	// migrationDetectingShared starts in legacy (it is the fleet's third
	// process, an even index) and flips only by the random phase's
	// switchMode: LockGroup does not flip it.
	migrationDetectingShared = withUser(migrationKindDetecting("legacy|combined/deadlock-shared",
		[2]lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined},
		func(i int) lockstep.Mode { return [2]lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined}[i%2] },
		false, &lockstep.DeadlockDetection{}), nestedSharedUser)
)

// withUser returns k run by user.
func withUser(k kind, user func(h *harness, ctx context.Context, pr *proc)) kind {
	k.user = user
	return k
}

// deadlockSharedFleet: in phase combined, which allows both of the
// migration Locker's modes. Its depth keeps its share of CI near 30 s:
// deepSharedChecks rapid checks (200 took 6.2 s on the shared 2-core
// machine) and one in 20 of the sweep's seeds (100 schedules, 6.3 s),
// besides its control's search.
var deadlockSharedFleet = fleet{name: "legacy+combined/deadlock-shared",
	kinds:    []kind{legacyDetectingShared, combinedDetectingShared, migrationDetectingShared},
	deadlock: true, sweepDivisor: 20, extraFault: switchMode, setup: phaseAt(lockstep.ModeCombined)}

// deepSharedChecks is the shared deadlock fleet's rapid checks under
// LOCKSTEP_DEEP=1.
const deepSharedChecks = 400

// nestedSharedUser is nestedUser asking for each id Shared.
func nestedSharedUser(h *harness, ctx context.Context, pr *proc) {
	nestedUnits(h, ctx, pr, lockstep.Shared)
}

func TestDeadlockSharedFleet_ExclusionNoPermanentDeadlockAndOnlyTrueReports(t *testing.T) {
	checkFleetDepth(t, "legacy+combined/deadlock-shared", variant{}, deepSharedChecks)
}
