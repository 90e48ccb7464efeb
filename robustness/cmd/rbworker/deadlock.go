package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// unit is one deadlock-prone unit of work in the slot starting at start
// (slots.go): r.first at once, r.second at dlAsk into the slot, when the
// unit's peers in the slot hold their first ids (their seconds), so they
// wait for each other in a cycle until detection fails one of them with
// ErrDeadlock (the victim; the others then go on). Both are taken by one
// unit of work (the Locker's Unit), so the Locker publishes the unit's
// holdings with its waits. The first is Shared one time in four, the second always
// exclusive: every edge of the cycle is then a conflict in the records
// too (a migration Locker in mode legacy or combined takes a Shared
// request exclusively but publishes it as asked, docs/algorithms.md §8.5,
// so two Shared requests would wait for each other unseen). One unit in
// five then takes an id it holds again (a reentrant acquisition, which
// must never be part of a cycle). Every acquisition is recorded with what
// the unit held when it asked; one that fails (ErrDeadlock included) ends
// the unit, which releases everything it holds, last taken first.
func (m *lockman) unit(ctx context.Context, start int64, r role) {
	m.stats.units++
	m.unitSeq++
	u := m.dl.(lockstep.UnitLocker).Unit(fmt.Sprintf("%s unit %d", m.c.process, m.unitSeq))
	var held []*mheld
	defer func() {
		for i := len(held) - 1; i >= 0; i-- {
			m.release(held[i])
		}
	}()
	access := "X"
	if m.rng.IntN(4) == 0 {
		access = "S"
	}
	h, ok := m.acquire(ctx, u, r.first, access, false, held)
	if !ok {
		return
	}
	held = append(held, h)
	m.sleep(ctx, time.Duration(start+int64(dlAsk)-m.clk.Now()))
	if h, ok = m.acquire(ctx, u, r.second, "X", false, held); !ok {
		return
	}
	held = append(held, h)
	// Not at once: the deadlock checker tells a reported wait from a
	// reentrant acquisition of the same id by time, within the harness's
	// 100 ms, and the second id is granted just as the victim returns.
	m.sleep(ctx, 200*time.Millisecond+time.Duration(m.rng.Int64N(int64(200*time.Millisecond))))
	if m.rng.IntN(5) == 0 {
		// Again an id the unit holds, in the access it holds it in:
		// granted at once, never a wait of a cycle.
		again := held[m.rng.IntN(len(held))]
		if h, ok = m.acquire(ctx, u, again.id, again.access, true, held); !ok {
			return
		}
		held = append(held, h)
	}
	m.sleep(ctx, time.Duration(m.rng.Int64N(int64(200*time.Millisecond))))
}

// acquire takes id in access under the unit's ctx and records the wait and
// its outcome.
func (m *lockman) acquire(uctx context.Context, u lockstep.Unit, id, access string, reentrant bool, held []*mheld) (*mheld, bool) {
	var holding []string
	for _, h := range held {
		if !h.reentrant {
			holding = append(holding, history.Member(h.id, h.access))
		}
	}
	e := history.Event{Op: history.EvAcquire, ID: id, Access: access, Unit: m.unitSeq, Holding: holding, Reentrant: reentrant}
	if m.plants["fake-deadlock"] && len(held) == 0 && m.unitSeq%2 == 1 {
		// Planted: a made-up ErrDeadlock on the first id of every other
		// unit (the first unit's included, so a short control sees one),
		// which it cannot be waiting for in a cycle (it holds nothing).
		e.InvokeNS = m.clk.Now()
		m.sleep(uctx, 300*time.Millisecond)
		e.ReturnNS, e.Outcome, e.Err = m.clk.Now(), history.Deadlock, "planted: made-up deadlock"
		e.Cycle = []history.CycleMember{{Process: m.c.process + ":dl", ID: id, Access: access, HeldBy: "nobody", HeldIn: "X"}}
		m.stats.deadlocks++
		m.record(e)
		return nil, false
	}
	lctx, cancel := context.WithTimeout(uctx, min(m.c.lockTimeout, dlLockTimeout))
	defer cancel()
	e.InvokeNS = m.clk.Now()
	var l lockstep.Lock
	var err error
	if access == "X" {
		l, err = u.Lock(lctx, id)
	} else {
		l, err = u.LockGroup(lctx, lockstep.Request{ID: id, Access: lockstep.Shared})
	}
	e.ReturnNS = m.clk.Now()
	var de *lockstep.DeadlockError
	switch {
	case err == nil:
		e.Outcome, e.Owner = history.OK, l.Owner()
		m.stats.acquired++
		if reentrant {
			m.stats.reentrant++
		}
	case errors.As(err, &de):
		e.Outcome, e.Err = history.Deadlock, err.Error()
		for _, c := range de.Cycle {
			e.Cycle = append(e.Cycle, history.CycleMember{Process: c.Process, ID: c.Waits.ID, Access: c.Waits.Access.String(),
				HeldBy: c.HeldBy, HeldIn: c.HeldIn.String()})
		}
		m.stats.deadlocks++
	default:
		e.Outcome, e.Err = history.Fail, err.Error()
		m.stats.failed++
	}
	m.record(e)
	if err != nil {
		return nil, false
	}
	return &mheld{id: id, access: access, l: l, reentrant: reentrant, lastOpen: e.ReturnNS}, true
}
