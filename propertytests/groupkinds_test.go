package propertytests

import (
	"context"
	"math/rand/v2"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	combinedlock "github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The modes of the lock-manager fleets: the fleets' own Lockers
// (fleet_test.go) with hierarchical ids (Options.Separator = groupSep),
// run by groupUser. Each implements lockstep.GroupLocker through
// internal/manager: the queue lock takes each member in its access, the
// legacy lock every member exclusively, the combined lock the queue half in
// the member's access and the legacy half exclusively.
var (
	managerQueue = kind{name: "new/manager", mode: lockstep.ModeNew, user: groupUser, new: newManagerQueue(false)}
	// managerQueueRanged keeps its intention owner cells in the intention
	// range (queuelock.Options.IntentionRange; docs/algorithms.md, section
	// 4.14).
	managerQueueRanged = kind{name: "new/manager-ranged", mode: lockstep.ModeNew, user: groupUser, new: newManagerQueue(true)}
	managerLegacy      = kind{name: "legacy/manager", mode: lockstep.ModeLegacy, user: groupUser,
		new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
			l, err := shadowlock.New(p.Store(), &shadowlock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Clock: k.clock(p.Clock()),
				ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing, Separator: groupSep, TestingKnobs: k.legacy})
			if err != nil {
				return nil, nil, err
			}
			return l, l.Close, nil
		}}
	// managerCombined sets the Separator on the combined Locker, not on its
	// halves (combined.Options.Separator): the ancestors are taken once,
	// for both halves.
	managerCombined = kind{name: "combined/manager", mode: lockstep.ModeCombined, user: groupUser,
		new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
			l, err := combinedlock.New(p.Store(), &combinedlock.Options{
				Queue: &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
					Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), TestingKnobs: k.queue},
				Legacy: &shadowlock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Clock: k.clock(p.Clock()),
					ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), TestingKnobs: k.legacy},
				Fencing:      fencing,
				Separator:    groupSep,
				TestingKnobs: k.combined,
			})
			if err != nil {
				return nil, nil, err
			}
			return l, l.Close, nil
		}}
)

// newManagerQueue builds the queue Lockers of the lock-manager fleets, with
// Options.IntentionRange as ranged says.
func newManagerQueue(ranged bool) func(*sim.Process, uint64, *clock.Global, knobs) (lockstep.Locker, func(context.Context) error, error) {
	return func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
		l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
			Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing, Separator: groupSep,
			IntentionRange: ranged, TestingKnobs: k.queue})
		if err != nil {
			return nil, nil, err
		}
		return l, l.Close, nil
	}
}
