package queue

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// Goroutines of three hierarchical Lockers take random groups of random
// accesses on a small tree, some under a reentrancy holder of their own:
// every group is granted within the hour (no deadlock: canonical order),
// and no two groups held at once are incompatible on any id of the tree,
// counting what a lock of an ancestor implies (effective).
func TestGroup_RandomGroupsOnATreeNeitherDeadlockNorConflict(t *testing.T) {
	ids := []string{"a", "a/b", "a/c", "a/b/x", "d"}
	for seed := range uint64(4) {
		synctest.Test(t, func(t *testing.T) {
			s := model.New(&clock.Local{})
			var mu sync.Mutex
			held := map[*int][]lockstep.Request{}
			var wg sync.WaitGroup
			for p := range 3 {
				l := newHierLocker(t, s)
				for g := range 3 {
					r := rand.New(rand.NewPCG(seed, uint64(10*p+g)))
					wg.Go(func() {
						ctx := context.Background()
						var lg lockstep.GroupLocker = l.Locker
						if g == 0 {
							lg = unitLocker{l.Unit("")}
						}
						for range 10 {
							var reqs []lockstep.Request
							for range 1 + r.IntN(2) {
								reqs = append(reqs, lockstep.Request{ID: ids[r.IntN(len(ids))], Access: lockstep.Access(r.IntN(5))})
							}
							wctx, cancel := context.WithTimeout(ctx, time.Hour)
							lk, err := lg.LockGroup(wctx, reqs...)
							cancel()
							if err != nil {
								t.Errorf("seed %d: %v: %v", seed, reqs, err)
								return
							}
							me := new(int)
							members := lk.(lockstep.Grouped).Members()
							mu.Lock()
							for _, other := range held {
								for _, id := range ids {
									a, okA := effective(members, id)
									b, okB := effective(other, id)
									if okA && okB && !a.Compatible(b) {
										t.Errorf("seed %d: %v (%v) held beside %v (%v) on %q", seed, a, members, b, other, id)
									}
								}
							}
							held[me] = members
							mu.Unlock()
							time.Sleep(time.Duration(r.IntN(30)) * time.Millisecond)
							mu.Lock()
							delete(held, me)
							mu.Unlock()
							require.NoError(t, lk.Unlock(context.Background()))
						}
					})
				}
			}
			wg.Wait()
		})
	}
}

// effective is what a group holding members holds on id, in the hierarchy's
// meaning: its own member on id, joined with S for an S or SIX lock of an
// ancestor and X for an X lock of one; false if nothing.
func effective(members []lockstep.Request, id string) (lockstep.Access, bool) {
	var acc lockstep.Access
	ok := false
	add := func(a lockstep.Access) {
		if ok {
			acc = lockstep.Join(acc, a)
		} else {
			acc, ok = a, true
		}
	}
	for _, m := range members {
		switch {
		case m.ID == id:
			add(m.Access)
		case strings.HasPrefix(id, m.ID+"/"):
			switch m.Access {
			case lockstep.Exclusive:
				add(lockstep.Exclusive)
			case lockstep.Shared, lockstep.SharedIntentExclusive:
				add(lockstep.Shared)
			}
		}
	}
	return acc, ok
}

// unitLocker is a unit of work as a lockstep.GroupLocker.
type unitLocker struct{ lockstep.Unit }

func (unitLocker) Close(context.Context) error { return nil }
