package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// separator makes the workers' ids hierarchical (migration.Options.Separator
// when --manager-share is set): "lock-0/a" is a child of "lock-0".
const separator = "/"

// managerIDs is how many of the plain locks' ids the lock-manager
// acquisitions share: few, so that they meet the plain exclusive holds and
// each other often.
const managerIDs = 2

// managerOp draws one lock-manager acquisition over lock-0 and lock-1 (the
// ids the plain Locks take too) and their children "a" and "b": a reader of
// an id (a group of one Shared request), a hierarchical Lock of a child
// (exclusive; IX on the parent), a hierarchical reader of a child (IS on the
// parent), a group of both children in random accesses, a reader of a parent
// writing one child (SIX on the parent), or a reader of one parent with a
// writer below the other. None writes the registers: their holds are
// judged by the access checker alone.
func (w *worker) managerOp() op {
	base := fmt.Sprintf("lock-%d", w.rng.IntN(min(w.c.locks, managerIDs)))
	other := fmt.Sprintf("lock-%d", (w.rng.IntN(min(w.c.locks, managerIDs))))
	child := func(parent string) string { return parent + separator + []string{"a", "b"}[w.rng.IntN(2)] }
	access := func() lockstep.Access { return []lockstep.Access{lockstep.Exclusive, lockstep.Shared}[w.rng.IntN(2)] }
	switch w.rng.IntN(6) {
	case 0:
		return w.groupOp(base, lockstep.Request{ID: base, Access: lockstep.Shared})
	case 1:
		id := child(base)
		o := w.groupOp(base, lockstep.Request{ID: id})
		o.take = func(ctx context.Context) (lockstep.Lock, error) { return w.locker.Lock(ctx, id) } // Lock itself takes IX on base
		return o
	case 2:
		return w.groupOp(base, lockstep.Request{ID: child(base), Access: lockstep.Shared})
	case 3:
		return w.groupOp(base, lockstep.Request{ID: base + separator + "a", Access: access()},
			lockstep.Request{ID: base + separator + "b", Access: access()})
	case 4:
		return w.groupOp(base, lockstep.Request{ID: base, Access: lockstep.Shared}, lockstep.Request{ID: child(base)})
	default:
		if other == base {
			return w.groupOp(base, lockstep.Request{ID: base, Access: lockstep.Shared})
		}
		return w.groupOp(base, lockstep.Request{ID: base, Access: lockstep.Shared}, lockstep.Request{ID: child(other)})
	}
}

// groupOp is a LockGroup of reqs; base is the id whose counter the holder
// reads.
func (w *worker) groupOp(base string, reqs ...lockstep.Request) op {
	o := op{base: base}
	seen := map[string]bool{}
	var keys []string
	for _, r := range reqs {
		o.members = append(o.members, history.Member(r.ID, r.Access.String()))
		keys = append(keys, r.ID)
		for id := r.ID; ; {
			if !seen[id] {
				seen[id] = true
				o.ids = append(o.ids, id)
			}
			i := strings.LastIndex(id, separator)
			if i < 0 {
				break
			}
			id = id[:i]
		}
	}
	o.key = strings.Join(keys, "+")
	o.take = func(ctx context.Context) (lockstep.Lock, error) {
		g, ok := w.locker.(lockstep.GroupLocker)
		if !ok {
			return nil, fmt.Errorf("rbworker: %T takes no lock groups", w.locker)
		}
		return g.LockGroup(ctx, reqs...)
	}
	return o
}

// read is a lock-manager hold's critical section: it reads the unfenced
// counter of base (a reader's access; nothing is written), works for a
// random time up to --hold, and looks at Lost() before and after.
func (w *worker) read(h *hold, l lockstep.Lock, base string) {
	if w.lost(h, l) {
		return
	}
	if _, err := w.reg.ReadCounter(context.Background(), base); err != nil {
		return
	}
	w.sleep(context.Background(), w.workTime())
	w.lost(h, l)
}
