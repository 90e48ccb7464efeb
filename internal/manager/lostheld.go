package manager

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
)

// lostHolding is a reentrancy holder's member that an earlier Lock of the
// holder took and whose lease was lost since. The registry keeps it as the
// holder's until that Lock is unlocked (its Unlock reports the loss and
// drops the member): counting it again would return a lock that another
// process may hold, and taking the id afresh under the same holder would
// make two entries of one (holder, id). So a later acquisition of the id by
// the holder fails with lostHolding until the earlier Lock is unlocked.
type lostHolding struct {
	id    string // the member's id
	owner string // the Owner() of the earlier Lock that holds it
}

func (e *lostHolding) Error() string {
	return fmt.Sprintf("the unit of work's earlier Lock holding %q (Owner() %s) was lost", e.id, e.owner)
}

func (e *lostHolding) Unwrap() error { return lockstep.ErrLost }

// failLostHolding ends the run, whose member r.i the holder held through an
// earlier Lock that was lost, having released what the run took: the error
// wraps lockstep.ErrLost and says to unlock the earlier Lock first.
func (r *Run) failLostHolding(lh *lostHolding) {
	what, again := "lock "+joinRequests(r.reqs), "take "+joinRequests(r.reqs)+" again"
	if len(r.reqs) > 1 {
		what = fmt.Sprintf("lock group [%s]: member %d of %d, %s", joinRequests(r.plan), r.i+1, len(r.plan), r.plan[r.i])
		again = "take the group again"
	}
	held := "nothing was taken"
	if len(r.members) > 0 {
		held = "what this call took was released, so nothing is held by it"
	}
	err := fmt.Errorf("lockstep: %s: this unit of work already holds %q through an earlier "+
		"Lock (Owner() %s) whose lease was lost (it lapsed: the store or the network stalled its renewals), so another "+
		"process may hold %q now and the unit of work cannot count it again; %s: unlock that earlier Lock first (its "+
		"Unlock reports the loss and releases %q), then %s: %w",
		what, lh.id, lh.owner, lh.id, held, lh.id, again, lockstep.ErrLost)
	r.end(nil, errors.Join(err, r.m.abandon(context.WithoutCancel(r.ctx), r.members)))
}
