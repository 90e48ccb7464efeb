package lockd_test

import (
	"context"
	"fmt"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// HeldLock.reentrant is true only for a Lock that took nothing: the first
// Lock of rx/2 beside a held rx/1 shares the intention lock on rx but takes
// rx/2, so it is not reentrant; a second Lock of rx/1 is.
func TestLock_ReentrantOnlyWhenTheLockOnlyCounted(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	s := open(t, c, 0)
	ctx := context.Background()
	lock := func(items ...*pb.LockItem) *pb.HeldLock {
		t.Helper()
		res, err := c.Lock(ctx, lockReq(s, items...))
		require.NoError(t, err)
		return res.Msg.Lock
	}
	first := lock(item("rx/1", pb.Access_ACCESS_EXCLUSIVE))
	assert.False(t, first.Reentrant, "the first take")
	sibling := lock(item("rx/2", pb.Access_ACCESS_EXCLUSIVE))
	assert.False(t, sibling.Reentrant, "rx/2 was taken; only the intention lock on rx was shared")
	again := lock(item("rx/1", pb.Access_ACCESS_EXCLUSIVE))
	assert.True(t, again.Reentrant, "rx/1 and the intention lock on rx were both held: it only counts")
	group := lock(item("rx/2", pb.Access_ACCESS_SHARED), item("rx/1", pb.Access_ACCESS_EXCLUSIVE))
	assert.True(t, group.Reentrant, "every member covered")

	d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err)
	got := map[string]bool{}
	for _, h := range d.Msg.Locks {
		got[h.LockId] = h.Reentrant
	}
	assert.Equal(t, map[string]bool{first.LockId: false, sibling.LockId: false, again.LockId: true, group.LockId: true}, got)

	// rx/2 is held by the session's own first take of it, not only
	// counted: with every handle of rx/1 released it stays held.
	for _, h := range []*pb.HeldLock{first, again, group} {
		_, err := c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: h.LockId}))
		require.NoError(t, err)
	}
	other := open(t, c, 0)
	_, err = c.TryLock(ctx, lockReq(other, item("rx/2", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
	_, err = c.TryLock(ctx, lockReq(other, item("rx/1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "rx/1 is free")
}

// lockedPrincipals: billing holds the locks; audit may lock the same ids
// but not list sessions; ops may list them.
func lockedPrincipals(t *testing.T) *lockd.Principals {
	t.Helper()
	doc := fmt.Sprintf(`{"principals": [
		{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"]},
		{"name": "audit", "token_sha256": [%q], "prefixes": ["billing/"]},
		{"name": "ops", "token_sha256": [%q], "prefixes": ["billing/"], "list_sessions": true}
	]}`, lockd.TokenDigest("tok-billing"), lockd.TokenDigest("tok-audit"), lockd.TokenDigest("tok-ops"))
	p, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	return p
}

func openNamed(t *testing.T, c lockstepv1connect.LockServiceClient, name string) string {
	t.Helper()
	res, err := c.OpenSession(context.Background(), connect.NewRequest(&pb.OpenSessionRequest{Name: name}))
	require.NoError(t, err)
	return res.Msg.SessionId
}

// The LOCKED detail names the member that stopped the Lock: the id asked,
// a group's busy member, or the ancestor whose intention lock met a holder.
// The message names the holding session (its id and name) to the holder's
// own principal and to one granted list_sessions, never to another.
func TestLock_LockedNamesTheMemberAndTheHolderOnlyToThoseGrantedIt(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: lockedPrincipals(t)}})
	ctx := context.Background()
	billing := f.client("connect", "tok-billing", nil)
	holder := openNamed(t, billing, "nightly-export")
	for _, id := range []string{"billing/7", "billing/t"} {
		_, err := billing.Lock(ctx, lockReq(holder, item(id, pb.Access_ACCESS_EXCLUSIVE)))
		require.NoError(t, err)
	}
	holderText := fmt.Sprintf(`session %q ("nightly-export")`, holder)

	for _, tc := range []struct {
		token string
		sees  bool
	}{{"tok-billing", true}, {"tok-ops", true}, {"tok-audit", false}} {
		c := f.client("connect", tc.token, nil)
		s := openNamed(t, c, "caller")
		for _, want := range []struct {
			items  []*pb.LockItem
			member string
		}{
			{[]*pb.LockItem{item("billing/7", pb.Access_ACCESS_SHARED)}, "billing/7"},
			{[]*pb.LockItem{item("billing/1", pb.Access_ACCESS_EXCLUSIVE), item("billing/7", pb.Access_ACCESS_EXCLUSIVE)}, "billing/7"},
			{[]*pb.LockItem{item("billing/t/1", pb.Access_ACCESS_EXCLUSIVE)}, "billing/t"}, // its ancestor's intention lock
		} {
			_, err := c.TryLock(ctx, lockReq(s, want.items...))
			le := requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
			assert.Equal(t, want.member, le.Id, "%s %v", tc.token, want.items)
			assert.Equal(t, s, le.SessionId)
			if tc.sees {
				assert.Contains(t, err.Error(), fmt.Sprintf("(%q is held by %s of this lockd)", want.member, holderText), tc.token)
			} else {
				assert.NotContains(t, err.Error(), "nightly-export", tc.token)
				assert.NotContains(t, err.Error(), holder, tc.token)
				assert.NotContains(t, err.Error(), "is held by session", tc.token)
			}
		}
	}
}
