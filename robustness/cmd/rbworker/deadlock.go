package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// unit is one deadlock-prone unit of work: two or three acquisitions of
// ids dl-0 .. dl-2 in a random order, exclusive or shared, nested under one
// reentrancy holder (so the Locker publishes the unit's holdings with its
// waits, and cycles across processes are seen), sometimes taking again an
// id the unit holds (a reentrant acquisition, which must never be part of
// a cycle). Every acquisition is recorded with what the unit held when it
// asked; one that fails (ErrDeadlock included) ends the unit, which
// releases everything it holds, last taken first.
func (m *lockman) unit(ctx context.Context) {
	m.stats.units++
	m.unitSeq++
	holder := &struct{ seq int64 }{m.unitSeq}
	uctx := lockstep.WithComment(lockstep.WithReentrancy(ctx, holder), fmt.Sprintf("%s unit %d", m.c.process, m.unitSeq))
	var held []*mheld
	defer func() {
		for i := len(held) - 1; i >= 0; i-- {
			m.release(held[i])
		}
	}()
	order := m.rng.Perm(deadlockIDs)
	n := 2 + m.rng.IntN(2)
	for k := 0; k < n && ctx.Err() == nil; k++ {
		id, access, reentrant := fmt.Sprintf("dl-%d", order[k%deadlockIDs]), "X", false
		if m.rng.IntN(4) == 0 {
			access = "S"
		}
		if len(held) > 0 && m.rng.IntN(5) == 0 {
			// Again an id the unit holds, in the access it holds it in:
			// granted at once, never a wait of a cycle.
			h := held[m.rng.IntN(len(held))]
			id, access, reentrant = h.id, h.access, true
		}
		h, ok := m.acquire(uctx, id, access, reentrant, held)
		if !ok {
			return
		}
		held = append(held, h)
		m.sleep(ctx, time.Duration(m.rng.Int64N(int64(400*time.Millisecond))))
	}
	m.sleep(ctx, time.Duration(m.rng.Int64N(int64(m.c.hold/2)+1)))
}

// acquire takes id in access under the unit's ctx and records the wait and
// its outcome.
func (m *lockman) acquire(uctx context.Context, id, access string, reentrant bool, held []*mheld) (*mheld, bool) {
	var holding []string
	for _, h := range held {
		if !h.reentrant {
			holding = append(holding, history.Member(h.id, h.access))
		}
	}
	e := history.Event{Op: history.EvAcquire, ID: id, Access: access, Unit: m.unitSeq, Holding: holding, Reentrant: reentrant}
	if m.plants["fake-deadlock"] && len(held) == 0 && m.rng.IntN(3) == 0 {
		// Planted: a made-up ErrDeadlock on the unit's first id, which
		// it cannot be waiting for in a cycle (it holds nothing).
		e.InvokeNS = m.clk.Now()
		m.sleep(uctx, 300*time.Millisecond)
		e.ReturnNS, e.Outcome, e.Err = m.clk.Now(), history.Deadlock, "planted: made-up deadlock"
		e.Cycle = []history.CycleMember{{Process: m.c.process + ":dl", ID: id, Access: access, HeldBy: "nobody", HeldIn: "X"}}
		m.stats.deadlocks++
		m.record(e)
		return nil, false
	}
	lctx, cancel := context.WithTimeout(uctx, m.c.lockTimeout)
	defer cancel()
	e.InvokeNS = m.clk.Now()
	var l lockstep.Lock
	var err error
	if access == "X" {
		l, err = m.dl.Lock(lctx, id)
	} else {
		l, err = m.dl.LockGroup(lctx, lockstep.Request{ID: id, Access: lockstep.Shared})
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
