package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The lock-manager worker (--lockman-history): instead of the plain loop
// it runs deadlock-prone units of work (deadlock.go) and transfers of held
// locks to other processes (transfer.go), and writes history.Events.

// lockmanPlants are the worker's own defects for the controls (not library
// knobs): fake-deadlock reports made-up ErrDeadlocks with no cycle;
// early-leave makes a giver release before its successor adopts, and the
// successor record the hold as continuous all the same; no-detection builds
// the worker's dl- Locker without deadlock detection, while its units form
// cycles as ever (caught by the cycle checker: they last until the Lock
// calls time out).
var lockmanPlants = []string{"fake-deadlock", "early-leave", "no-detection"}

// The deadlock detection of the lock-manager workers: waits are published
// after half a second and looked at every quarter second, so that a cycle
// is broken well within a Lock call's timeout. The cycle checker's bound
// (check.CycleBound) is computed from these two.
var lockmanDetection = lockstep.DeadlockDetection{After: 500 * time.Millisecond, Every: 250 * time.Millisecond}

// How many ids the transfers take: few, so that contention forms often.
// (The units' dl- ids follow from the slots: slots.go.)
const transferIDs = 2

type lockman struct {
	c       config
	clk     *history.Clock
	ev      *history.Writer
	session *gocql.Session
	dl      lockstep.GroupLocker // migration.Locker with deadlock detection
	tx      *queuelock.Locker    // a Sharer: the transfers' Locker
	reg     *register.Client
	rng     *rand.Rand
	plants  map[string]bool
	unitSeq int64
	handSeq int64
	stats   lockmanStats
	histErr int
}

type lockmanStats struct {
	units, acquired, reentrant, deadlocks, failed int
	holds, offered, handedOver, adopted, writes   int
}

func (s lockmanStats) String() string {
	return fmt.Sprintf("%d units (%d acquisitions, %d reentrant, %d ErrDeadlock, %d other failures); %d transfer holds, %d handovers offered, %d handed over, %d adopted; %d fenced writes",
		s.units, s.acquired, s.reentrant, s.deadlocks, s.failed, s.holds, s.offered, s.handedOver, s.adopted, s.writes)
}

// parseLockmanPlants checks --lockman-plant: names from lockmanPlants,
// comma-separated.
func parseLockmanPlants(s string) (map[string]bool, error) {
	out := map[string]bool{}
	if s == "" {
		return out, nil
	}
	for _, n := range strings.Split(s, ",") {
		ok := false
		for _, p := range lockmanPlants {
			ok = ok || p == n
		}
		if !ok {
			return nil, fmt.Errorf("--lockman-plant %q: unknown defect; want some of %s, comma-separated", n, strings.Join(lockmanPlants, ", "))
		}
		out[n] = true
	}
	return out, nil
}

// runLockman is run's body for a lock-manager worker.
func runLockman(ctx context.Context, c config, clk *history.Clock) (err error) {
	m := &lockman{c: c, clk: clk, rng: rand.New(rand.NewPCG(c.seed, 0x6c6b6d6e))}
	if m.plants, err = parseLockmanPlants(c.lockmanPlant); err != nil {
		return err
	}
	if m.ev, err = history.Create(c.lockmanHistory); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.ev.Close()) }()
	if m.reg, err = register.NewClient(c.registerURL, c.process, c.requestTimeout); err != nil {
		return err
	}
	session, st, err := dial(c)
	if err != nil {
		return err
	}
	m.session = session
	defer session.Close()
	var clk0 lockstep.Clock = &clock.Local{}
	fence, err := clock.NewGlobal(st.global, "", clk0)
	if err != nil {
		return err
	}
	detection := &lockmanDetection
	if m.plants["no-detection"] {
		detection = nil // planted: cycles are left to the Lock timeout
	}
	dl, err := migration.New(st.global, migration.File(c.flagFile), &migration.Options{Clock: clk0, ProcessID: c.process + ":dl",
		Queue:    &queuelock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew},
		Legacy:   &shadowlock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew},
		Deadlock: detection,
	})
	if err != nil {
		return err
	}
	m.dl = dl
	if m.tx, err = queuelock.New(st.global, &queuelock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew, Clock: clk0,
		ProcessID: c.process + ":tx", Fencing: fence, Evidence: c.evidence}); err != nil {
		_ = dl.Close(context.Background())
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 4*c.requestTimeout)
		defer cancel()
		err = errors.Join(err, m.tx.Close(cctx), dl.Close(cctx))
	}()
	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	for ctx.Err() == nil {
		switch _, start, r := m.nextSlot(ctx); {
		case r.unit():
			m.unit(ctx, start, r)
		case r.give:
			m.transferHold(ctx)
		}
	}
	fmt.Fprintf(os.Stderr, "rbworker %s (lock manager): %s\n", c.process, m.stats)
	if m.histErr > 0 {
		return fmt.Errorf("%d events could not be written to %s: the history is incomplete", m.histErr, c.lockmanHistory)
	}
	return nil
}

// record appends e to the lock-manager history (see worker.record).
func (m *lockman) record(e history.Event) {
	e.Process = m.c.process
	if err := m.ev.WriteEvent(e); err != nil {
		m.histErr++
		fmt.Fprintln(os.Stderr, "rbworker:", err)
	}
}

// mheld is one lock the worker holds: what returned it, and the last
// instant its Lost() was seen open.
type mheld struct {
	id, access string
	l          lockstep.Lock
	reentrant  bool
	lastOpen   int64
}

// open reports whether h's Lost() is open now, moving lastOpen if so.
func (m *lockman) open(h *mheld) bool {
	t := m.clk.Now()
	select {
	case <-h.l.Lost():
		return false
	default:
		h.lastOpen = t
		return true
	}
}

// release unlocks h and records it: ValidNS is the last instant Lost() was
// seen open, looked at just before Unlock.
func (m *lockman) release(h *mheld) {
	lost := !m.open(h)
	ctx, cancel := context.WithTimeout(context.Background(), 4*m.c.requestTimeout)
	defer cancel()
	inv := m.clk.Now()
	err := h.l.Unlock(ctx)
	e := history.Event{Op: history.EvRelease, ID: h.id, Reentrant: h.reentrant, InvokeNS: inv, ReturnNS: m.clk.Now(),
		Outcome: history.OK, ValidNS: h.lastOpen, Lost: lost || errors.Is(err, lockstep.ErrLost)}
	if err != nil && !onlyLost(err) {
		e.Outcome, e.ReturnNS, e.Err = history.Unknown, history.Never, err.Error()
	}
	m.record(e)
}

// sleep waits d or until ctx ends.
func (m *lockman) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
