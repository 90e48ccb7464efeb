package main

import (
	"context"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// newLocalLocker builds the Locker of the worker's DC-local locks: a queue
// lock on the DC-local store (LOCAL_QUORUM, rows of the data centre's own),
// fenced by a global time service on that store, whose tokens rise within
// the data centre (LOCAL_QUORUM reads meet the data centre's LOCAL_QUORUM
// writes), which is all a DC-local lock's register needs. The migration
// layer refuses a DC-local store (its census and phase are fleet-wide), so
// these locks are the queue lock's, in mode new. Every Locker that writes
// them is one of these, so they draw their tokens beside their claims
// (Options.Evidence EvidenceUse, docs/algorithms.md section 5.3), and the
// token checker judges that too.
func newLocalLocker(c config, store lockstep.Store, obs lockstep.Observer) (locker, error) {
	var clk lockstep.Clock = &clock.Local{}
	var fence *clock.Global
	evidence := queuelock.EvidenceOff
	if c.fencing {
		g, err := clock.NewGlobal(store, "", clk)
		if err != nil {
			return nil, err
		}
		fence, evidence = g, queuelock.EvidenceUse
	}
	return queuelock.New(store, &queuelock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew, Clock: clk,
		ProcessID: c.process + ":local", Fencing: fence, Evidence: evidence, Observer: obs, TestingKnobs: c.planted.queue})
}

// localOp draws one acquisition of a DC-local lock: local-N of the worker's
// data centre, recorded under history.LocalKey (its register cells are the
// key's, so two data centres' local-N never share a register). Its lease
// reports under the row the queue lock keeps it in (lockstep.Scope.Row).
func (w *worker) localOp() op {
	id := fmt.Sprintf("local-%d", w.rng.IntN(w.c.locks))
	key := history.LocalKey(id, w.c.dc)
	return op{key: key, ids: []string{lockstep.LocalTo(w.c.dc).Row(id)}, writes: true,
		take: func(ctx context.Context) (lockstep.Lock, error) { return w.local.Lock(ctx, id) }}
}

// hideScope is a store with its scope hidden: lockstep.ScopeOf takes it for
// a global one. Only the planted global-at-local-quorum defect uses it.
type hideScope struct{ lockstep.Store }
