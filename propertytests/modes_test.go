package propertytests

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// censusTTL is the census TTL of the simulated migration.Locker processes,
// twice the lock TTL: migration.Options.CensusTTL says how often an entry is
// rewritten, when a process stops trusting its heartbeat, and when a
// crashed process's entry stops blocking phase moves.
var censusTTL = 2 * ttl

// switchFlag is a migration.FlagSource that the test flips between modes at
// any moment, as an operator flips a feature flag. Safe for concurrent use.
type switchFlag struct {
	mu   sync.Mutex
	mode lockstep.Mode
}

func (f *switchFlag) Mode(context.Context) (lockstep.Mode, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mode, nil
}

func (f *switchFlag) set(m lockstep.Mode) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode = m
}

// toggle moves the flag to the other mode of pair and returns both.
func (f *switchFlag) toggle(pair [2]lockstep.Mode) (from, to lockstep.Mode) {
	f.mu.Lock()
	defer f.mu.Unlock()
	from, to = f.mode, pair[0]
	if from == to {
		to = pair[1]
	}
	f.mode = to
	return from, to
}

// switchLocker is a simulated process's migration.Locker with the flag that
// chooses its mode. pair holds the two modes its flag moves between. When
// flipOnAcquire is set, the flag flips as soon as a lock is taken, so that
// every lock is held across a switch and the next one is taken in the other
// mode.
type switchLocker struct {
	*migration.Locker
	flag          *switchFlag
	pair          [2]lockstep.Mode
	flipOnAcquire bool
}

// Lock takes the lock in the flag's mode, then flips the flag if
// flipOnAcquire is set.
func (l *switchLocker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	lk, err := l.Locker.Lock(ctx, id)
	if err == nil && l.flipOnAcquire {
		l.flip()
	}
	return lk, err
}

// flip moves the flag to the other mode of the pair and returns both.
func (l *switchLocker) flip() (from, to lockstep.Mode) { return l.flag.toggle(l.pair) }

// migrationKind returns the kind of a process that takes its locks through
// migration.Locker — census heartbeat, phase guard, the mode read from its
// flag at every acquisition — with the fleet's timing. Its flag starts at
// start(process index); flips move it between the modes of pair.
func migrationKind(name string, pair [2]lockstep.Mode, start func(int) lockstep.Mode, flipOnAcquire bool) kind {
	return migrationKindDetecting(name, pair, start, flipOnAcquire, nil)
}

// migrationKindDetecting is migrationKind with the migration Locker's
// Options.Deadlock set to dl (nil: detection off).
func migrationKindDetecting(name string, pair [2]lockstep.Mode, start func(int) lockstep.Mode, flipOnAcquire bool, dl *lockstep.DeadlockDetection) kind {
	return migrationKindWith(name, pair, start, flipOnAcquire, dl, 0)
}

// migrationKindWith is migrationKindDetecting with the migration Locker's
// Options.LocalHandoff set to local (0: off; cohort_test.go).
func migrationKindWith(name string, pair [2]lockstep.Mode, start func(int) lockstep.Mode, flipOnAcquire bool, dl *lockstep.DeadlockDetection, local int) kind {
	return migrationKindCensus(name, pair, start, flipOnAcquire, dl, local, func() time.Duration { return censusTTL })
}

// migrationKindCensus is migrationKindWith with the migration Locker's
// Options.CensusTTL set to census() when the Locker is made.
func migrationKindCensus(name string, pair [2]lockstep.Mode, start func(int) lockstep.Mode, flipOnAcquire bool, dl *lockstep.DeadlockDetection, local int, census func() time.Duration) kind {
	return kind{name: name, mode: pair[0], new: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs) (lockstep.Locker, func(context.Context) error, error) {
		flag := &switchFlag{mode: start(p.Index)}
		l, err := migration.New(p.Store(), flag, &migration.Options{Clock: k.clock(p.Clock()), ProcessID: p.Name,
			Queue:        &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Evidence: k.evidence, TestingKnobs: k.queue},
			Legacy:       &shadowlock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), TestingKnobs: k.legacy},
			CensusTTL:    census(),
			Fencing:      fencing,
			Host:         "sim",
			Version:      "test",
			Deadlock:     dl,
			LocalHandoff: local,
			TestingKnobs: k.migration,
		})
		if err != nil {
			return nil, nil, err
		}
		return &switchLocker{Locker: l, flag: flag, pair: pair, flipOnAcquire: flipOnAcquire}, l.Close, nil
	}}
}

// switching returns the kind of a process whose flag moves between a and b:
// it flips whenever the process takes a lock, so every lock is held across a
// switch (and the process alternates modes), and the random phase flips it
// at any other moment too (switchMode) — while the process waits, or as its
// heartbeat reads the flag. Even processes start in a, odd ones in b, so
// the fleet is mixed from the start.
func switching(a, b lockstep.Mode) kind {
	return migrationKind(a.String()+"|"+b.String(), [2]lockstep.Mode{a, b}, func(i int) lockstep.Mode {
		if i%2 == 0 {
			return a
		}
		return b
	}, true)
}

var (
	legacyOrCombined = switching(lockstep.ModeLegacy, lockstep.ModeCombined)
	combinedOrNew    = switching(lockstep.ModeCombined, lockstep.ModeNew)
)

// switchMode is the random-phase fault of the switching fleets: the flag of
// one live process flips to the other mode of its pair — possibly while the
// process holds a lock taken in the old mode or is waiting for one, which
// keeps the mode it was asked in. It reports false for a fleet without
// switchable processes.
func switchMode(h *harness, ch sim.Chooser) bool {
	live := h.live()
	pr := live[ch.Choose("process", len(live))]
	sl, ok := pr.locker.(*switchLocker)
	if !ok {
		return false
	}
	from, to := sl.flip()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.switches++
	note := ""
	if l := pr.holding; l != nil {
		note = fmt.Sprintf(" while holding %s in mode %v", l.Owner(), l.Mode())
	}
	h.event("switch %s from %v to %v%s", pr.sp.Name, from, to, note)
	return true
}

// flagMode returns the mode the flag gives now.
func (l *switchLocker) flagMode() lockstep.Mode {
	m, _ := l.flag.Mode(context.Background())
	return m
}

// phaseAt returns a fleet setup that moves the phase, from its initial
// legacy, one step at a time to target with a migration.Controller — on a
// cluster with no process yet, so every move commits.
func phaseAt(target lockstep.Mode) func(*sim.Sim) error {
	return func(s *sim.Sim) error {
		c, err := migration.NewController(allReplicas{s.Cluster()}, &migration.ControllerOptions{Clock: virtualClock{s}})
		if err != nil {
			return err
		}
		path := map[lockstep.Mode][]lockstep.Mode{
			lockstep.ModeLegacy:   nil,
			lockstep.ModeCombined: {lockstep.ModeCombined},
			lockstep.ModeNew:      {lockstep.ModeCombined, lockstep.ModeNew},
		}[target]
		for _, m := range path {
			if err := c.Set(context.Background(), m); err != nil {
				return fmt.Errorf("setting up phase %v: %w", m, err)
			}
		}
		return nil
	}
}

// allReplicas is the cluster seen from outside the simulation, before the
// run: writes reach every replica at once, reads ask replica 0.
type allReplicas struct{ c *model.Cluster }

func (a allReplicas) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	var errs []error
	for i := range a.c.Config().Replicas {
		errs = append(errs, a.c.Replica(i).Put(ctx, table, row, cells...))
	}
	return errors.Join(errs...)
}

func (a allReplicas) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	var errs []error
	for i := range a.c.Config().Replicas {
		errs = append(errs, a.c.Replica(i).Delete(ctx, table, row, ts, columns...))
	}
	return errors.Join(errs...)
}

func (a allReplicas) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	return a.c.Replica(0).Read(ctx, table, row, sl)
}

// virtualClock reads the simulation's virtual time. It cannot sleep: it is
// for code that runs outside the simulated processes and never waits.
type virtualClock struct{ s *sim.Sim }

func (c virtualClock) Now() int64     { return c.s.Now() }
func (c virtualClock) Elapsed() int64 { return c.s.Now() }

func (c virtualClock) Sleep(context.Context, time.Duration) error {
	return errors.New("propertytests: the virtual clock cannot sleep outside a simulated process")
}
