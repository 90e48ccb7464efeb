package lockd_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

func getToken(t *testing.T, c lockstepv1connect.LockServiceClient, session string) string {
	t.Helper()
	res, err := c.GetToken(context.Background(), connect.NewRequest(&pb.GetTokenRequest{SessionId: session}))
	require.NoError(t, err)
	require.NotEmpty(t, res.Msg.Identity)
	return res.Msg.Token
}

func setToken(c lockstepv1connect.LockServiceClient, session, token string) (*pb.SetTokenResponse, error) {
	res, err := c.SetToken(context.Background(), connect.NewRequest(&pb.SetTokenRequest{SessionId: session, Token: token}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

func describe(t *testing.T, c lockstepv1connect.LockServiceClient, session string) *pb.DescribeSessionResponse {
	t.Helper()
	res, err := c.DescribeSession(context.Background(), connect.NewRequest(&pb.DescribeSessionRequest{SessionId: session}))
	require.NoError(t, err)
	return res.Msg
}

// requireFree checks, with a fresh session, whether id can be taken now
// (and gives it back).
func requireFree(t *testing.T, c lockstepv1connect.LockServiceClient, id string, free bool) {
	t.Helper()
	ctx := context.Background()
	s := open(t, c, 0)
	defer func() { _, _ = c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: s})) }()
	_, err := c.TryLock(ctx, lockReq(s, item(id, pb.Access_ACCESS_EXCLUSIVE)))
	if free {
		require.NoError(t, err, "%s should be free", id)
		return
	}
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
}

// The handover of seed 003: A reads its token, B takes it and holds A's
// lock under the same handle and fencing token, A leaves, and the lock
// stays held, by B alone, until B unlocks it. Over each protocol.
func TestToken_HandoverKeepsTheLocksUntilTheLastSessionLetsGo(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	for _, proto := range []string{"grpc", "connect", "json"} {
		t.Run(proto, func(t *testing.T) {
			c := f.client(proto, "", nil)
			ctx := context.Background()
			id := "xfer-" + proto // flat: a hierarchical id has no single fencing token
			a, b := open(t, c, 0), open(t, c, 0)
			got, err := c.Lock(ctx, lockReq(a, item(id, pb.Access_ACCESS_EXCLUSIVE)))
			require.NoError(t, err)
			tok := getToken(t, c, a)

			res, err := setToken(c, b, tok)
			require.NoError(t, err)
			require.Len(t, res.Locks, 1)
			require.Equal(t, got.Msg.Lock.LockId, res.Locks[0].LockId)
			require.Equal(t, got.Msg.Lock.Token, res.Locks[0].Token, "the same fencing token: nothing was taken again")
			require.NotZero(t, res.Locks[0].Token)
			db := describe(t, c, b)
			require.Equal(t, res.Identity, db.Identity)
			require.EqualValues(t, 2, db.IdentitySessions)
			require.Equal(t, db.Identity, describe(t, c, a).Identity)

			_, err = c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: a}))
			require.NoError(t, err)
			requireFree(t, c, id, false) // B still holds it
			db = describe(t, c, b)
			require.EqualValues(t, 1, db.IdentitySessions)
			require.Len(t, db.Locks, 1)

			_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: b, LockId: res.Locks[0].LockId}))
			require.NoError(t, err)
			requireFree(t, c, id, true)
			_, err = c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: b}))
			require.NoError(t, err)
		})
	}
}

// Locks belong to the identity: a lock the giver takes after the token was
// read is the adopter's too, reentrant across the two sessions, and
// UnlockAll of either releases them all.
func TestToken_LaterLocksAreTheIdentitys(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	ctx := context.Background()
	a, b := open(t, c, 0), open(t, c, 0)
	tok := getToken(t, c, a)
	_, err := setToken(c, b, tok)
	require.NoError(t, err)
	la, err := c.Lock(ctx, lockReq(a, item("later-1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	require.Len(t, describe(t, c, b).Locks, 1)
	lb, err := c.TryLock(ctx, lockReq(b, item("later-1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "the identity holds it: reentrant, not LOCKED")
	require.True(t, lb.Msg.Lock.Reentrant)
	require.Equal(t, la.Msg.Lock.Token, lb.Msg.Lock.Token)
	ua, err := c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: b}))
	require.NoError(t, err)
	require.Equal(t, []string{"l-1", "l-2"}, ua.Msg.LockIds)
	require.Empty(t, describe(t, c, a).Locks)
	requireFree(t, c, "later-1", true)
}

// A session of a shared identity that lapses leaves it: the locks are not
// lost (another session holds them), its watch ends EXPIRED with no lost
// lock; when the last session lapses, they are released and lost to it.
func TestToken_LapseOfOneSessionKeepsTheLocksTheLastReleases(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	ctx := context.Background()
	a := open(t, c, time.Second)
	b := open(t, c, 0)
	_, err := c.Lock(ctx, lockReq(a, item("lapse/1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = setToken(c, b, getToken(t, c, a))
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	stream, err := c.WatchSession(wctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: a}))
	require.NoError(t, err)
	var last *pb.SessionEvent
	for stream.Receive() {
		last = stream.Msg()
	}
	require.NoError(t, stream.Close())
	require.Equal(t, pb.SessionEvent_KIND_EXPIRED, last.Kind)
	require.Empty(t, last.LockIds, "the identity's locks stay with B: not lost to A")
	requireFree(t, c, "lapse/1", false)
	require.Len(t, describe(t, c, b).Locks, 1)

	// B, the last session, leaves by moving to a third identity? Refused:
	// it holds the lock (HOLDS_LOCKS). Closing it releases.
	_, err = c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: b}))
	require.NoError(t, err)
	requireFree(t, c, "lapse/1", true)
}

// Every refusal of SetToken, one by one: each is its status and reason,
// is logged, and changes nothing (the session keeps its identity and
// locks, the giver its locks).
func TestToken_EveryRefusalChangesNothing(t *testing.T) {
	doc := fmt.Sprintf(`{"principals": [
		{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"]},
		{"name": "reports", "token_sha256": [%q], "prefixes": ["reports/"]},
		{"name": "audit", "token_sha256": [%q], "prefixes": ["audit/"], "adopt_from": ["billing"]}
	]}`, lockd.TokenDigest("tok-billing"), lockd.TokenDigest("tok-reports"), lockd.TokenDigest("tok-audit"))
	principals, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: principals}})
	billing, reports, audit := f.client("connect", "tok-billing", nil), f.client("grpc", "tok-reports", nil), f.client("json", "tok-audit", nil)
	ctx := context.Background()
	giver := open(t, billing, 0)
	_, err = billing.Lock(ctx, lockReq(giver, item("billing/1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	tok := getToken(t, billing, giver)
	r := open(t, reports, 0)
	_, err = reports.Lock(ctx, lockReq(r, item("reports/1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	before := describe(t, reports, r)

	unchanged := func() {
		t.Helper()
		now := describe(t, reports, r)
		require.Equal(t, before.Identity, now.Identity)
		require.Len(t, now.Locks, 1)
		require.Len(t, describe(t, billing, giver).Locks, 1)
		require.EqualValues(t, 1, describe(t, billing, giver).IdentitySessions)
	}
	other := []byte(tok)
	other[5] ^= 1 // another lockd instance: still well-formed hex
	if other[5] < '0' || (other[5] > '9' && other[5] < 'a') || other[5] > 'f' {
		other[5] = '0'
	}
	for _, c := range []struct {
		name   string
		token  string
		code   connect.Code
		reason pb.LockError_Reason
	}{
		{"empty", "", connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_TOKEN},
		{"garbage", "hello", connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_TOKEN},
		{"truncated", tok[:len(tok)-1], connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_TOKEN},
		{"another version", "lkt2" + tok[4:], connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_TOKEN},
		{"not hex", tok[:len(tok)-1] + "g", connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_TOKEN},
		{"another lockd", string(other), connect.CodeFailedPrecondition, pb.LockError_REASON_OTHER_LOCKD},
		{"never issued", tok[:len(tok)-4] + "0000", connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_TOKEN},
		{"another principal's", tok, connect.CodePermissionDenied, pb.LockError_REASON_NOT_YOUR_TOKEN},
		{"its own", getToken(t, reports, r), connect.CodeFailedPrecondition, pb.LockError_REASON_OWN_TOKEN},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "another lockd" {
				require.NotEqual(t, tok, c.token)
			}
			_, err := setToken(reports, r, c.token)
			le := requireRefusal(t, err, c.code, c.reason)
			require.Equal(t, r, le.SessionId)
			require.NotContains(t, err.Error(), tok, "the error never echoes a token")
			refusedLogged(t, f, c.reason)
			unchanged()
		})
	}

	t.Run("holds locks", func(t *testing.T) {
		// reports' own principal token, from a second session: r is the
		// last session of its identity and holds reports/1.
		r2 := open(t, reports, 0)
		_, err := setToken(reports, r, getToken(t, reports, r2))
		requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_HOLDS_LOCKS)
		refusedLogged(t, f, pb.LockError_REASON_HOLDS_LOCKS)
		unchanged()
		require.Equal(t, describe(t, reports, r2).Identity, describe(t, reports, r2).Identity)
		require.NotEqual(t, before.Identity, describe(t, reports, r2).Identity)
	})

	t.Run("an ended session's", func(t *testing.T) {
		g2 := open(t, reports, 0)
		tok2 := getToken(t, reports, g2)
		_, err := reports.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: g2}))
		require.NoError(t, err)
		_, err = setToken(reports, r, tok2)
		requireRefusal(t, err, connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_TOKEN)
		unchanged()
	})

	t.Run("granted by adopt_from", func(t *testing.T) {
		a := open(t, audit, 0)
		res, err := setToken(audit, a, tok)
		require.NoError(t, err)
		require.Len(t, res.Locks, 1)
		require.EqualValues(t, 2, describe(t, billing, giver).IdentitySessions)
		// audit's new Locks are still checked against its own prefixes.
		_, err = audit.TryLock(ctx, lockReq(a, item("billing/2", pb.Access_ACCESS_EXCLUSIVE)))
		requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NO_PREFIX)
		// and it may not inspect the giver's session, only its own.
		_, err = audit.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: giver}))
		requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NOT_YOUR_SESSION)
	})
}

func TestPrincipals_AdoptFromMustNameAnotherPrincipal(t *testing.T) {
	for _, from := range []string{"nobody", "billing"} {
		doc := fmt.Sprintf(`{"principals": [{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"], "adopt_from": [%q]}]}`,
			lockd.TokenDigest("t"), from)
		_, err := lockd.ParsePrincipals([]byte(doc))
		require.ErrorContains(t, err, "adopt_from")
	}
}
