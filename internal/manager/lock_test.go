package manager

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestLock_OneFencedMemberIsFencedGroupsAreNot(t *testing.T) {
	m, _ := newManager(t, "/")
	a, err := m.Acquire(bg, reqs("a"), false)
	require.NoError(t, err)
	f, ok := a.(lockstep.Fenced)
	require.True(t, ok, "a lock of one fenced member is Fenced")
	assert.Equal(t, int64(1), f.Token())
	require.NoError(t, a.Unlock(bg))
	a, err = m.Acquire(bg, reqs("a"), false)
	require.NoError(t, err)
	assert.Equal(t, int64(2), a.(lockstep.Fenced).Token(), "the member's token, from its next owner")
	require.NoError(t, a.Unlock(bg))

	for _, rs := range [][]lockstep.Request{reqs("a", "b"), reqs("a/b")} {
		g, err := m.Acquire(bg, rs, false)
		require.NoError(t, err)
		_, ok := g.(lockstep.Fenced)
		assert.False(t, ok, "%v: a group of several members is not Fenced", rs)
		require.NoError(t, g.Unlock(bg))
	}
}

func TestLock_MemberLossClosesGroupLost(t *testing.T) {
	for _, plain := range []string{"", "b", "a b c"} {
		t.Run("plain="+plain, func(t *testing.T) {
			m, tab := newManager(t, "")
			for _, id := range []string{"a", "b", "c"} {
				tab.plain[id] = plain != "" && (plain == "a b c" || plain == id)
			}
			l, err := m.Acquire(bg, reqs("a", "b", "c"), false)
			require.NoError(t, err)
			assert.False(t, closed(l.Lost()))
			fakeOf(t, l, 1).lose()
			select {
			case <-l.Lost(): // forwarded by OnFire, or by the watcher goroutine
			case <-groupOf(t, l).done:
				// The watcher fires the loss before it ends, so both may be
				// ready here and select picks either.
				require.True(t, closed(l.Lost()), "watcher ended without a loss")
			}
			err = l.Unlock(bg)
			require.ErrorIs(t, err, lockstep.ErrLost)
			assert.Empty(t, tab.held(), "a lost group is still released")
			assert.NoError(t, l.Unlock(bg), "the loss is reported once")
		})
	}
}

func TestLock_LostRunsTheMembersDeadlineChecks(t *testing.T) {
	m, _ := newManager(t, "")
	l, err := m.Acquire(bg, reqs("a", "b"), false)
	require.NoError(t, err)
	// b's deadline passed, and no goroutine has fired its loss yet.
	fakeOf(t, l, 1).expired.Store(true)
	assert.True(t, closed(l.Lost()), "Lost must see a passed deadline at once")
	require.ErrorIs(t, l.Unlock(bg), lockstep.ErrLost)
}

func TestLock_LossReportedByTheGroupWhenNoMemberReportsIt(t *testing.T) {
	m, _ := newManager(t, "")
	holder := forUnit(bg, "job")
	outer, err := m.Acquire(holder, reqs("a"), false)
	require.NoError(t, err)
	inner, err := m.Acquire(holder, reqs("a"), false)
	require.NoError(t, err)
	fakeOf(t, outer, 0).lose()
	assert.True(t, closed(inner.Lost()))
	// inner only counts down: the member's own Unlock, which reports the
	// loss, is outer's; the group reports it all the same.
	err = inner.Unlock(bg)
	require.ErrorIs(t, err, lockstep.ErrLost)
	assert.Contains(t, err.Error(), "a member's lease was lost")
	require.ErrorIs(t, outer.Unlock(bg), lockstep.ErrLost)
}

func TestLock_UnlockRetriesOnlyTheFailedMembers(t *testing.T) {
	m, tab := newManager(t, "")
	l, err := m.Acquire(bg, reqs("a", "b", "c"), false)
	require.NoError(t, err)
	tab.failUnlock["b"] = 2
	tab.resetLog()

	err = l.Unlock(bg)
	require.ErrorIs(t, err, errStore)
	assert.Equal(t, []string{"release c", "fail-release b", "release a"}, tab.logged())
	assert.Equal(t, []string{"b:X"}, tab.held())

	tab.resetLog()
	require.ErrorIs(t, l.Unlock(bg), errStore)
	assert.Equal(t, []string{"fail-release b"}, tab.logged())

	tab.resetLog()
	require.NoError(t, l.Unlock(bg))
	assert.Equal(t, []string{"release b"}, tab.logged())
	assert.Empty(t, tab.held())

	tab.resetLog()
	require.NoError(t, l.Unlock(bg))
	assert.Empty(t, tab.logged(), "after a full release Unlock does nothing")
}

func TestLock_UnlockWithEndedCtxKeepsTheLockReleasable(t *testing.T) {
	m, tab := newManager(t, "")
	l, err := m.Acquire(bg, reqs("a", "b"), false)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	require.ErrorIs(t, l.Unlock(ctx), ctx.Err())
	assert.Equal(t, []string{"a:X", "b:X"}, tab.held())
	require.NoError(t, l.Unlock(bg))
	assert.Empty(t, tab.held())
}

func TestLock_ConcurrentUnlocksReleaseOnce(t *testing.T) {
	m, tab := newManager(t, "/")
	l, err := m.Acquire(bg, reqs("a/b", "c"), false)
	require.NoError(t, err)
	tab.resetLog()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { assert.NoError(t, l.Unlock(bg)) })
	}
	wg.Wait()
	assert.Equal(t, []string{"release c", "release a/b", "release a"}, tab.logged())
	assert.Empty(t, tab.held())
}

func TestLock_WatcherGoroutineStopsAtUnlock(t *testing.T) {
	m, tab := newManager(t, "")
	tab.plain["a"] = true
	l, err := m.Acquire(bg, reqs("a", "b"), false)
	require.NoError(t, err)
	g := groupOf(t, l)
	require.NotNil(t, g.done, "a member without *held.Loss is watched")
	require.NoError(t, l.Unlock(bg))
	assert.True(t, closed(g.done), "Unlock waits for the watcher to end")
	assert.False(t, closed(l.Lost()), "stopping the watcher is no loss")

	// With only *held.Loss members there is no goroutine at all, and the
	// member forgets the group at Unlock.
	l, err = m.Acquire(bg, reqs("b"), false)
	require.NoError(t, err)
	g = groupOf(t, l)
	assert.Nil(t, g.done)
	assert.Len(t, g.members[0].subs, 1)
	require.NoError(t, l.Unlock(bg))
	assert.Empty(t, g.members[0].subs)
}
