package propertytests

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// lockTables are the tables whose cells belong to locks; each must be empty
// of live cells once every lock of an id is gone. (The census, phase and
// global-time tables hold fleet-wide state, not per-id state.)
var lockTables = []string{queuelock.DefaultTable, shadowlock.DefaultMainTable, shadowlock.DefaultShadowTable}

// stateGrace is how long after the end of a run every lock cell must be
// gone: the TTL of the longest-lived cell a lock writes (queuelock's
// published floor: 2×TTL + Poll, rounded up to whole seconds), plus a second
// for Cassandra's whole-second expiry and the replicas' skew.
func stateGrace() time.Duration {
	return (2*ttl + poll + time.Second - 1).Truncate(time.Second) + time.Second + replicaSkew
}

// checkStateFreed is property 5, bounded per-id state: after the run every
// process stops (crashes: nothing is released), time passes by stateGrace,
// and then no replica may hold a live cell of the lock in any lock table.
// A lock id used once must not cost the table a live partition forever.
// It ends the simulation; the harness must only be closed afterwards.
func (h *harness) checkStateFreed() error {
	if h.v.noStateCheck {
		return nil
	}
	h.s.Close()
	h.s.Advance(stateGrace())
	c := h.s.Cluster()
	ids := h.rows(lockID)
	if h.grp != nil {
		ids = nil
		for _, id := range h.grp.spec.idSpace() {
			if !isMask(id, h.grp.spec.sep) {
				ids = append(ids, id)
			}
		}
	}
	if h.dl != nil {
		ids = deadlockIDs
	}
	for i := range c.Config().Replicas {
		for _, table := range lockTables {
			for _, id := range ids {
				cells, err := c.Replica(i).Read(context.Background(), table, id, lockstep.Slice{})
				if err != nil {
					return fmt.Errorf("state: reading %s/%s at replica %d: %v", table, id, i, err)
				}
				if len(cells) > 0 {
					return fmt.Errorf("state: %v after every process stopped, replica %d still holds %d live cells of %q in %s: %v\ntrace:\n%s",
						stateGrace(), i, len(cells), id, table, cells, h.report())
				}
			}
		}
	}
	return nil
}
