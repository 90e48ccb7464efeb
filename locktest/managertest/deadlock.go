package managertest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// detection is what the deadlock scenarios switch on: the defaults, one
// second before a wait is published and one between rounds.
var detection = lockstep.DeadlockDetection{}

// newDetecting returns a Locker with deadlock detection, closed when the
// test ends; it skips the test if the Env cannot build one.
func newDetecting(t *testing.T, env Env, s lockstep.Store, sep string) lockstep.GroupLocker {
	t.Helper()
	if env.NewDetecting == nil {
		t.Skip("the Env has no NewDetecting: this Locker has no deadlock detection")
	}
	l := env.NewDetecting(t, s, sep, detection)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// deadlockPair: two clients, each its own Locker, take a then b and b then
// a, each as one unit of work (a reentrancy holder). Exactly one of them
// gets lockstep.ErrDeadlock, naming both waits and both comments; it
// releases what it holds, as the error tells it, and the other proceeds.
func deadlockPair(t *testing.T, env Env) {
	cycleOf(t, env, "", []string{"a", "b"}, lockstep.Exclusive)
}

// deadlockShared: two clients ask Shared for a then b and b then a. A
// Locker that takes every access exclusively (Env.ExclusiveOnly: the
// legacy and combined Lockers, a migration Locker in those modes) holds
// each id exclusively, so the two wait for each other: exactly one gets
// lockstep.ErrDeadlock, whose cycle shows the waits and holdings in the
// access really taken, Exclusive, and the other proceeds
// (docs/algorithms.md, section 8.5). Any other Locker shares both ids:
// both proceed, and nothing is reported.
func deadlockShared(t *testing.T, env Env) {
	if env.ExclusiveOnly {
		cycleOf(t, env, "", []string{"a", "b"}, lockstep.Shared)
		return
	}
	compatiblePair(t, env, []string{"a", "b"})
}

// deadlockTriangle: three clients on hierarchical ids take dir/a, dir/b and
// dir/c, then each the next one's: a cycle of three waits, all below one
// ancestor whose intention locks are compatible. Exactly one client fails.
// A Locker that takes every access exclusively (Env.ExclusiveOnly) would
// make the intention locks on dir exclude each other, so there the three
// ids are flat.
func deadlockTriangle(t *testing.T, env Env) {
	if env.ExclusiveOnly {
		cycleOf(t, env, "", []string{"a", "b", "c"}, lockstep.Exclusive)
		return
	}
	cycleOf(t, env, "/", []string{"dir/a", "dir/b", "dir/c"}, lockstep.Exclusive)
}

// outcome is one client's second acquisition.
type outcome struct {
	client int
	err    error
}

// cycleOf runs len(ids) clients: client i takes ids[i], then ids[i+1]
// (cyclically), each asked in access, so they wait in one cycle (for
// Shared, only on a Locker that takes it exclusively).
func cycleOf(t *testing.T, env Env, sep string, ids []string, access lockstep.Access) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	n := len(ids)
	type client struct {
		u     lockstep.Unit
		first lockstep.Lock
	}
	cs := make([]client, n)
	for i := range cs {
		cs[i].u = unitOf(t, newDetecting(t, env, s, sep), fmt.Sprintf("client %d", i))
		var err error
		cs[i].first, err = cs[i].u.LockGroup(base, lockstep.Request{ID: ids[i], Access: access})
		require.NoError(t, err, "client %d takes %s", i, ids[i])
	}
	out := make(chan outcome, n)
	for i := range cs {
		go func() {
			c := cs[i]
			rel := context.WithoutCancel(base) // releases run after a failed wait too
			second, err := c.u.LockGroup(base, lockstep.Request{ID: ids[(i+1)%n], Access: access})
			if err != nil {
				// What the error asks: release what the unit of work holds.
				out <- outcome{i, errors.Join(err, c.first.Unlock(rel))}
				return
			}
			out <- outcome{i, errors.Join(second.Unlock(rel), c.first.Unlock(rel))}
		}()
	}
	// Every client is heard from before anything is judged, so that none
	// outlives the test.
	var all, victims []outcome
	for range n {
		all = append(all, <-out)
	}
	for _, o := range all {
		if o.err != nil {
			require.ErrorIs(t, o.err, lockstep.ErrDeadlock, "client %d's error", o.client)
			victims = append(victims, o)
		}
	}
	require.Len(t, victims, 1, "exactly one client fails with ErrDeadlock; the others proceed")
	var de *lockstep.DeadlockError
	require.True(t, errors.As(victims[0].err, &de))
	require.Len(t, de.Cycle, n, "the cycle: %v", de)
	v := victims[0].client
	for k, m := range de.Cycle {
		i := (v + k) % n // the cycle starts with the victim and follows the waits
		// Published in the access really taken: Exclusive, whatever was
		// asked, on a Locker that takes every access exclusively.
		assert.Equal(t, lockstep.Request{ID: ids[(i+1)%n]}, m.Waits, "member %d", k)
		assert.Equal(t, fmt.Sprintf("client %d", i), m.Comment, "member %d", k)
		assert.Equal(t, lockstep.Exclusive, m.HeldIn, "member %d", k)
		assert.NotEmpty(t, m.HeldBy, "member %d", k)
	}
	assert.Contains(t, de.Error(), "client 0")
}

// compatiblePair runs two clients that take ids[0] then ids[1] and ids[1]
// then ids[0], Shared, on a Locker that shares: neither waits for the
// other, both proceed, and neither is reported, though both waits last past
// After.
func compatiblePair(t *testing.T, env Env, ids []string) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	order := [2][2]string{{ids[0], ids[1]}, {ids[1], ids[0]}}
	us := [2]lockstep.Unit{}
	firsts := [2]lockstep.Lock{}
	for i := range 2 {
		us[i] = unitOf(t, newDetecting(t, env, s, ""), fmt.Sprintf("client %d", i))
		var err error
		firsts[i], err = us[i].LockGroup(base, lockstep.Request{ID: order[i][0], Access: lockstep.Shared})
		require.NoError(t, err, "client %d takes %s Shared", i, order[i][0])
	}
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			second, err := us[i].LockGroup(base, lockstep.Request{ID: order[i][1], Access: lockstep.Shared})
			if err == nil {
				time.Sleep(1500 * time.Millisecond) // past After: a wait, had there been one, would be published
				err = second.Unlock(base)
			}
			errs <- errors.Join(err, firsts[i].Unlock(context.WithoutCancel(base)))
		}()
	}
	for range 2 {
		require.NoError(t, <-errs, "Shared requests share: no wait, no ErrDeadlock")
	}
}

// reentrantDetecting is seed scenario 3 with deadlock detection on, while
// another unit of work waits for the id the holder takes again and again:
// a reentrant acquisition never waits, so nothing is reported, and the
// waiter gets the id once the holder has released it.
func reentrantDetecting(t *testing.T, env Env) {
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	l, other := newDetecting(t, env, s, ""), newDetecting(t, env, s, "")
	u, ou := unitOf(t, l, "scenario 3"), unitOf(t, other, "waiter")

	held, err := ou.Lock(base, "mine")
	require.NoError(t, err)
	x1, err := u.Lock(base, "rec")
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		w, err := ou.Lock(base, "rec") // waits for the holder
		if err == nil {
			err = w.Unlock(base)
		}
		got <- err
	}()
	time.Sleep(3 * time.Second) // past After (1s): the waiter is published and looks for cycles
	x2, err := u.Lock(base, "rec")
	require.NoError(t, err, "second Exclusive by the same holder")
	time.Sleep(3 * time.Second) // more rounds, with the holder counted twice
	require.NoError(t, x2.Unlock(base))
	require.NoError(t, x1.Unlock(base))
	require.NoError(t, <-got, "the waiter gets the id after the holder's releases")

	shared := lockstep.Request{ID: "rec", Access: lockstep.Shared}
	s1, err := u.LockGroup(base, shared)
	require.NoError(t, err, "first Shared")
	s2, err := u.LockGroup(base, shared)
	require.NoError(t, err, "second Shared by the same holder")
	require.NoError(t, s1.Unlock(base))
	require.NoError(t, s2.Unlock(base))
	require.NoError(t, held.Unlock(base))
}
