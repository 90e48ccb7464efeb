package lockd_test

import (
	"context"
	"fmt"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// A prefix is compared bytewise: a bare "a" grants "a" itself, every id
// under it ("a/x") and every id that merely starts with it ("ab",
// "a-1/x"), and the masks of those; "a/" grants the ids under "a" but not
// "a" itself. A holder of "a" in X excludes every Lock below it, whoever's
// (docs/security.md, "Prefix grants").
func TestSecurity_BarePrefixGrantsEveryIDThatStartsWithIt(t *testing.T) {
	doc := fmt.Sprintf(`{"principals": [
		{"name": "bare", "token_sha256": [%q], "prefixes": ["a"]},
		{"name": "slash", "token_sha256": [%q], "prefixes": ["a/"]}
	]}`, lockd.TokenDigest("tok-bare"), lockd.TokenDigest("tok-slash"))
	p, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: p}})
	ctx := context.Background()
	bare, slash := f.client("connect", "tok-bare", nil), f.client("connect", "tok-slash", nil)
	sb, ss := open(t, bare, 0), open(t, slash, 0)

	try := func(c interface {
		TryLock(context.Context, *connect.Request[pb.LockRequest]) (*connect.Response[pb.LockResponse], error)
		Unlock(context.Context, *connect.Request[pb.UnlockRequest]) (*connect.Response[pb.UnlockResponse], error)
	}, s, id string, granted bool) {
		t.Helper()
		res, err := c.TryLock(ctx, lockReq(s, item(id, pb.Access_ACCESS_EXCLUSIVE)))
		if !granted {
			le := requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NO_PREFIX)
			require.Equal(t, id, le.Id)
			return
		}
		require.NoError(t, err, "%s", id)
		_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: res.Msg.Lock.LockId}))
		require.NoError(t, err)
	}
	for id, granted := range map[string]bool{"a": true, "a/x": true, "a/x/y": true, "ab": true, "abc/d": true, "a-1/x": true,
		"a/*": true, "ab/*": true, "b": false, "A": false, "ba": false, "*": false} {
		try(bare, sb, id, granted)
	}
	for id, granted := range map[string]bool{"a/x": true, "a/*": true, "a": false, "ab": false, "a-1/x": false} {
		try(slash, ss, id, granted)
	}

	// "a" in X, granted to bare alone, excludes slash's "a/x": the
	// intention lock "a/x" takes on "a" meets it.
	whole, err := bare.Lock(ctx, lockReq(sb, item("a", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = slash.TryLock(ctx, lockReq(ss, item("a/x", pb.Access_ACCESS_EXCLUSIVE)))
	le := requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
	require.Equal(t, "a", le.Id)
	_, err = bare.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sb, LockId: whole.Msg.Lock.LockId}))
	require.NoError(t, err)
}
