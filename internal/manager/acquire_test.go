package manager

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

var bg = context.Background()

func TestAcquire_TakesInCanonicalOrderAndReleasesInReverse(t *testing.T) {
	m, tab := newManager(t, "/")
	l, err := m.Acquire(bg, reqs("z", "a/b:S", "m"), false)
	require.NoError(t, err)
	assert.Equal(t, []string{"take a:IS", "take a/b:S", "take m:X", "take z:X"}, tab.logged())
	tab.resetLog()
	require.NoError(t, l.Unlock(bg))
	assert.Equal(t, []string{"release z", "release m", "release a/b", "release a"}, tab.logged())
	assert.Empty(t, tab.held())
}

func TestAcquire_IDIsTheCallersAndMembersTheCanonicalPlan(t *testing.T) {
	m, _ := newManager(t, "/")
	l, err := m.Acquire(bg, reqs("x/y"), false)
	require.NoError(t, err)
	assert.Equal(t, "x/y", l.ID())
	members := l.(lockstep.Grouped).Members()
	assert.Equal(t, []string{"x:IX", "x/y:X"}, strs(members))
	members[0].ID = "changed"
	assert.Equal(t, []string{"x:IX", "x/y:X"}, strs(l.(lockstep.Grouped).Members()), "Members must return a copy")
	assert.Equal(t, "owner-1", l.Owner(), "the first member's owner")
	assert.Equal(t, lockstep.ModeNew, l.Mode())
	require.NoError(t, l.Unlock(bg))

	l, err = m.Acquire(bg, reqs("q", "b:S"), false)
	require.NoError(t, err)
	assert.Equal(t, "q, b", l.ID())
	require.NoError(t, l.Unlock(bg))
}

func TestAcquire_CancelledMidGroupLeavesNothingHeld(t *testing.T) {
	m, tab := newManager(t, "")
	other, err := m.Acquire(bg, reqs("b"), false)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := m.Acquire(ctx, reqs("a", "b", "c"), false)
		errc <- err
	}()
	tab.waitFor(t, "the group to wait for b", func() bool { return tab.waiters("b") == 1 })
	assert.Equal(t, []string{"a:X", "b:X"}, tab.held())
	cancel()
	err = <-errc
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "member 2 of 3, b:X, not taken (1 taken before it released)")
	// a was released though ctx had ended: the cleanup's ctx is not cancelled.
	assert.Equal(t, []string{"b:X"}, tab.held())
	require.NoError(t, other.Unlock(bg))
	assert.Empty(t, tab.held())
	assert.Equal(t, 0, tab.waitersLocked("b"))
}

func TestAcquire_TryFailureReleasesWhatItTook(t *testing.T) {
	m, tab := newManager(t, "/")
	other, err := m.Acquire(bg, reqs("p/b:S"), false)
	require.NoError(t, err)
	calls := tab.callCount()

	_, err = m.Acquire(bg, reqs("p/c", "p/b", "p/a"), true)
	require.ErrorIs(t, err, lockstep.ErrLocked)
	assert.Contains(t, err.Error(), "member 3 of 4, p/b:X")
	// p (IX, compatible with IS) and p/a were taken, p/c never tried.
	assert.Equal(t, 3, tab.callCount()-calls)
	assert.Equal(t, []string{"p/b:S", "p:IS"}, tab.held())

	// A reader of the same id joins the reader.
	l, err := m.Acquire(bg, reqs("p/b:S"), true)
	require.NoError(t, err)
	require.NoError(t, l.Unlock(bg))
	require.NoError(t, other.Unlock(bg))
	assert.Empty(t, tab.held())
}

func TestAcquire_StoreErrorNamesTheMemberAndWrapsTheCause(t *testing.T) {
	m, tab := newManager(t, "")
	tab.failTake["b"] = errStore
	_, err := m.Acquire(bg, reqs("c", "b", "a"), false)
	require.ErrorIs(t, err, errStore)
	assert.Contains(t, err.Error(), "lock group [a:X, b:X, c:X]: member 2 of 3, b:X")
	assert.Empty(t, tab.held())
}

func TestAcquire_ReleaseErrorDuringCleanupIsJoined(t *testing.T) {
	m, tab := newManager(t, "")
	tab.failTake["b"] = errStore
	tab.failUnlock["a"] = 1
	_, err := m.Acquire(bg, reqs("a", "b"), false)
	require.ErrorIs(t, err, errStore)
	assert.Contains(t, err.Error(), `releasing "a" after the failed group`)
	assert.Equal(t, []string{"a:X"}, tab.held(), "left to the Locker's Close and the TTL")
}

func TestAcquire_BadInputTakesNothing(t *testing.T) {
	m, tab := newManager(t, "/")
	_, err := m.Acquire(bg, reqs("a", "b//c"), false)
	require.ErrorIs(t, err, lockstep.ErrInvalidID)
	_, err = m.Acquire(bg, nil, false)
	require.ErrorIs(t, err, lockstep.ErrInvalidID)
	assert.Zero(t, tab.callCount())
}

func TestAcquire_HierarchyConflictsWithAncestorsNotSiblings(t *testing.T) {
	m, tab := newManager(t, "/")
	w, err := m.Acquire(bg, reqs("d/f"), false)
	require.NoError(t, err)

	_, err = m.Acquire(bg, reqs("d:S"), true)
	assert.ErrorIs(t, err, lockstep.ErrLocked, "S on the parent of an X holder")
	_, err = m.Acquire(bg, reqs("d/f/g:S"), true)
	assert.ErrorIs(t, err, lockstep.ErrLocked, "a child of an X holder")
	sib, err := m.Acquire(bg, reqs("d/g"), true)
	require.NoError(t, err, "siblings do not conflict")
	require.NoError(t, sib.Unlock(bg))
	require.NoError(t, w.Unlock(bg))

	r, err := m.Acquire(bg, reqs("d:S"), true)
	require.NoError(t, err)
	_, err = m.Acquire(bg, reqs("d/f"), true)
	assert.ErrorIs(t, err, lockstep.ErrLocked, "X below an S holder")
	r2, err := m.Acquire(bg, reqs("d/f:S"), true)
	require.NoError(t, err, "S below an S holder")
	require.NoError(t, r2.Unlock(bg))
	require.NoError(t, r.Unlock(bg))
	assert.Empty(t, tab.held())
}

// Two goroutines ask for the same ids in opposite orders, over and over:
// taken in the caller's order they would soon each hold one and wait for the
// other (manager_bugs_test.go shows it); in canonical order they never do.
func TestAcquire_OppositeOrderGroupsDoNotDeadlock(t *testing.T) {
	m, tab := newManager(t, "/")
	ctx, cancel := context.WithTimeout(bg, 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	counter := 0
	for g, order := range [][]lockstep.Request{reqs("r/a", "r/b", "s:S"), reqs("s:S", "r/b", "r/a")} {
		wg.Go(func() {
			for i := range 300 {
				l, err := m.Acquire(ctx, order, false)
				if !assert.NoError(t, err, "goroutine %d, round %d", g, i) {
					return
				}
				counter++ // guarded by r/a and r/b
				assert.NoError(t, l.Unlock(ctx))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 600, counter)
	assert.Empty(t, tab.held())
}

func TestAcquire_ConcurrentGroupsKeepMutualExclusion(t *testing.T) {
	m, tab := newManager(t, "/")
	ctx, cancel := context.WithTimeout(bg, 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var inside [3]int // writers inside "t/<i>", under the tree's locks
	var mu sync.Mutex
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				// Alternately the whole tree in X, or two leaves.
				var rs []lockstep.Request
				if (g+i)%3 == 0 {
					rs = reqs("t")
				} else {
					rs = reqs(fmt.Sprintf("t/%d", (g+i)%3), fmt.Sprintf("t/%d", (g+i+1)%3))
				}
				l, err := m.Acquire(ctx, rs, false)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				for _, r := range rs {
					for k := range inside {
						if r.ID == "t" || r.ID == fmt.Sprintf("t/%d", k) {
							inside[k]++
							assert.Equal(t, 1, inside[k], "two writers in t/%d", k)
						}
					}
				}
				mu.Unlock()
				mu.Lock()
				for _, r := range rs {
					for k := range inside {
						if r.ID == "t" || r.ID == fmt.Sprintf("t/%d", k) {
							inside[k]--
						}
					}
				}
				mu.Unlock()
				assert.NoError(t, l.Unlock(ctx))
			}
		})
	}
	wg.Wait()
	assert.Empty(t, tab.held())
}

// loseAfterTaking makes the fake lose the lock of lost once the member
// after is taken: a member's lease lapsing while a later one is taken.
func loseAfterTaking(tab *table, after, lost string) {
	tab.afterTake = func(id string) {
		if id != after {
			return
		}
		tab.mu.Lock()
		defer tab.mu.Unlock()
		for h := range tab.row(lost).holders {
			h.lose()
		}
	}
}

// A group whose member was lost before the group was complete is not
// returned (doc.go, "Losing a member"): Acquire fails with ErrLost, naming
// the member, and releases everything it took.
func TestAcquire_MemberLostBeforeTheGroupIsCompleteFailsAndReleases(t *testing.T) {
	m, tab := newManager(t, "")
	loseAfterTaking(tab, "b", "a")
	l, err := m.Acquire(context.Background(), reqs("a", "b"), false)
	require.Nil(t, l)
	require.ErrorIs(t, err, lockstep.ErrLost)
	require.Contains(t, err.Error(), "member 1 of 2, a:X, was lost while the members after it were taken")
	require.Contains(t, err.Error(), "take the group again")
	require.Empty(t, tab.held(), "the group released what it took")
	tab.afterTake = nil
	l, err = m.Acquire(context.Background(), reqs("a", "b"), true)
	require.NoError(t, err, "taken again once the loss is over")
	require.NoError(t, l.Unlock(context.Background()))
}
