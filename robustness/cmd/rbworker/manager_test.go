package main

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// TestManagerOp_DrawsValidRequestsOverTheSharedIDs draws many operations:
// every member parses, every id lies under lock-0 or lock-1, the leases
// tracked cover each requested id and its ancestors, and every kind of
// access and depth occurs.
func TestManagerOp_DrawsValidRequestsOverTheSharedIDs(t *testing.T) {
	w := &worker{c: config{locks: 8}, rng: rand.New(rand.NewPCG(1, 2))}
	seen := map[string]bool{}
	for range 500 {
		o := w.managerOp()
		require.NotEmpty(t, o.members)
		require.NotNil(t, o.take)
		assert.False(t, o.writes, "a lock-manager hold writes nothing")
		ids := map[string]bool{}
		for _, id := range o.ids {
			ids[id] = true
		}
		for _, m := range o.members {
			id, acc, err := history.ParseMember(m)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(id, "lock-0") || strings.HasPrefix(id, "lock-1"), id)
			assert.True(t, ids[id], "%s tracked in %v", id, o.ids)
			if i := strings.Index(id, separator); i >= 0 {
				assert.True(t, ids[id[:i]], "ancestor of %s tracked in %v", id, o.ids)
				seen["child:"+acc] = true
			} else {
				seen["parent:"+acc] = true
			}
		}
		seen["members:"+string(rune('0'+len(o.members)))] = true
	}
	for _, k := range []string{"child:X", "child:S", "parent:S", "members:1", "members:2"} {
		assert.True(t, seen[k], "never drew %s", k)
	}
}

// TestTracker_GroupCountsEveryMembersLease follows a group of two ids in
// mode new: the deadline stays at the Lock call until both have renewed,
// and events of ids outside the group are ignored.
func TestTracker_GroupCountsEveryMembersLease(t *testing.T) {
	hw, err := history.Create(filepath.Join(t.TempDir(), "w.jsonl"))
	require.NoError(t, err)
	defer hw.Close()
	w := &worker{c: config{process: "w"}, name: "w", clk: history.NewClock(0), hw: hw, histErr: &atomic.Int64{}}
	tr := &tracker{w: w, window: int64(time.Second)}
	w.tr = tr
	h := tr.begin("w", "p/a", []string{"p/a:X"}, []string{"p/a", "p"}, 100)
	h.mode = lockstep.ModeNew
	ev := func(id string) {
		tr.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: id, Owner: "w.1", Mode: lockstep.ModeNew, Renewed: true})
	}
	ev("p/a")
	ev("q") // not the group's
	assert.Equal(t, 100+int64(time.Second), tr.deadline(h), "the parent's IX lease has not renewed")
	ev("p")
	ev("p/a")
	ev("p")
	tr.mu.Lock()
	lb := min(tr.ids["p"].okLB["new/w.1"], tr.ids["p/a"].okLB["new/w.1"])
	n := len(tr.ids["p"].okLB) + len(tr.ids["p/a"].okLB)
	tr.mu.Unlock()
	assert.Equal(t, 2, n)
	assert.Greater(t, lb, int64(100))
	assert.Equal(t, lb+int64(time.Second), tr.deadline(h))
	tr.end(h)

	// During a rollout a group's first member may be new and another
	// combined: that member has two leases from its first report on.
	h = tr.begin("w", "p/a", []string{"p/a:X"}, []string{"p/a", "p"}, 200)
	h.mode = lockstep.ModeNew
	half := func(id, owner string) {
		tr.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: id, Owner: owner, Mode: lockstep.ModeCombined, Renewed: true})
	}
	ev("p")
	ev("p")
	half("p/a", "w:combined.q")
	half("p/a", "w:combined.q")
	assert.Equal(t, 200+int64(time.Second), tr.deadline(h), "the combined member's legacy half has not renewed")
	half("p/a", "w:combined.l")
	half("p/a", "w:combined.l")
	assert.Greater(t, tr.deadline(h), 200+int64(time.Second), "every lease renewed since the Lock call")
	tr.end(h)
}
