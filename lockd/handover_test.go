package lockd_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// peerKey is the key the test cluster's lockds share.
var peerKey = bytes.Repeat([]byte{7}, lockd.MinPeerKey)

// twoLockds starts lockd A with fo, and lockd B beside it on A's fleet
// (same store, another process) with B's options.
func twoLockds(t *testing.T, fo fixtureOptions, b lockd.Options) (*fixture, *fixture) {
	t.Helper()
	fo.process = "lockd-a"
	fa := newFixture(t, fo)
	return fa, peer(t, fa, b, "lockd-b")
}

// peer starts one more lockd on fa's fleet, with opts.
func peer(t *testing.T, fa *fixture, opts lockd.Options, process string) *fixture {
	t.Helper()
	return newFixture(t, fixtureOptions{opts: opts, store: fa.store, process: process})
}

// A lockd whose flag says combined refuses to adopt a lock in mode new
// (INCOMPATIBLE_MODE), and a session that is the last of an identity
// holding locks refuses to leave it (HOLDS_LOCKS) after the adoption: in
// both cases nothing changes, and what was adopted is left to the giver.
func TestPeerToken_ModeAndHoldsLocksRefusals(t *testing.T) {
	fa := newFixture(t, fixtureOptions{opts: lockd.Options{PeerKey: peerKey}, process: "lockd-a"})
	fc := newFixture(t, fixtureOptions{opts: lockd.Options{PeerKey: peerKey}, store: fa.store, process: "lockd-c", mode: lockstep.ModeCombined})
	fb := peer(t, fa, lockd.Options{PeerKey: peerKey}, "lockd-b")
	ca, cb, cc := fa.client("connect", "", nil), fb.client("connect", "", nil), fc.client("connect", "", nil)
	ctx := context.Background()
	a := open(t, ca, 0)
	_, err := ca.Lock(ctx, lockReq(a, item("m", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	tok := getToken(t, ca, a)

	c := open(t, cc, 0)
	_, err = setToken(cc, c, tok)
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_INCOMPATIBLE_MODE)
	require.Contains(t, err.Error(), "flag says combined")
	require.Empty(t, describe(t, cc, c).Locks)
	closeSession(t, cc, c)

	b := open(t, cb, 0)
	_, err = cb.Lock(ctx, lockReq(b, item("own", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	before := describe(t, cb, b)
	_, err = setToken(cb, b, tok)
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_HOLDS_LOCKS)
	now := describe(t, cb, b)
	require.Equal(t, before.Identity, now.Identity)
	require.Len(t, now.Locks, 1)
	require.Len(t, describe(t, ca, a).Locks, 1)
	requireFree(t, cb, "m", false) // the giver still holds it
	closeSession(t, cb, b)
	closeSession(t, ca, a)
	requireFree(t, cb, "m", true) // and released it: the adoption left nothing behind
}

func closeSession(t *testing.T, c lockstepv1connect.LockServiceClient, s string) {
	t.Helper()
	_, err := c.CloseSession(context.Background(), connect.NewRequest(&pb.CloseSessionRequest{SessionId: s}))
	require.NoError(t, err)
}

// Seed 003's setToken across lockds: a session of lockd B takes the token
// a session of lockd A read, and holds A's locks — the same fencing
// tokens, continued by B's own Locker through the library's Share and
// Adopt. A leaves; the locks stay held by B alone until B unlocks them.
// On A the same token still names A's own identity.
func TestPeerToken_AnotherLockdAdoptsTheIdentitysLocks(t *testing.T) {
	fa, fb := twoLockds(t, fixtureOptions{opts: lockd.Options{PeerKey: peerKey}}, lockd.Options{PeerKey: peerKey})
	ca, cb := fa.client("connect", "", nil), fb.client("json", "", nil)
	ctx := context.Background()
	a := open(t, ca, 0)
	x, err := ca.Lock(ctx, lockReq(a, item("x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = ca.Lock(ctx, lockReq(a, item("jobs/7", pb.Access_ACCESS_EXCLUSIVE), item("ledger", pb.Access_ACCESS_SHARED)))
	require.NoError(t, err)
	tok := getToken(t, ca, a)
	require.True(t, strings.HasPrefix(tok, "lkt2."), "a lockd with a peer key issues peer tokens")

	a2 := open(t, ca, 0) // the token is A's own identity token on A
	res, err := setToken(ca, a2, tok)
	require.NoError(t, err)
	require.Len(t, res.Locks, 2)
	closeSession(t, ca, a2)

	b := open(t, cb, 0)
	res, err = setToken(cb, b, tok)
	require.NoError(t, err)
	require.Len(t, res.Locks, 2)
	var tokens []int64
	for _, l := range res.Locks {
		tokens = append(tokens, l.Token)
	}
	require.Contains(t, tokens, x.Msg.Lock.Token, "x keeps its fencing token: it was not taken again")
	requireFree(t, ca, "x", false)
	requireFree(t, cb, "jobs/7", false)

	closeSession(t, ca, a) // the giver leaves: B still holds
	requireFree(t, ca, "x", false)
	requireFree(t, cb, "jobs/7", false)
	require.Len(t, describe(t, cb, b).Locks, 2)

	_, err = cb.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: b}))
	require.NoError(t, err)
	requireFree(t, ca, "x", true)
	requireFree(t, ca, "jobs/7", true)
	closeSession(t, cb, b)
}

// Every refusal of a peer token, one by one: its status and reason, and
// nothing changed (the adopter keeps its identity and locks, the giver its
// locks).
func TestPeerToken_EveryRefusalChangesNothing(t *testing.T) {
	doc := fmt.Sprintf(`{"principals": [
		{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"]},
		{"name": "reports", "token_sha256": [%q], "prefixes": ["reports/"]},
		{"name": "audit", "token_sha256": [%q], "prefixes": ["audit/"], "adopt_from": ["billing"]}
	]}`, lockd.TokenDigest("tok-billing"), lockd.TokenDigest("tok-reports"), lockd.TokenDigest("tok-audit"))
	principals, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	opts := lockd.Options{Principals: principals, PeerKey: peerKey}
	fa, fb := twoLockds(t, fixtureOptions{opts: opts}, opts)
	fNoKey := peer(t, fa, lockd.Options{Principals: principals}, "lockd-nokey")
	otherKey := opts
	otherKey.PeerKey = bytes.Repeat([]byte{8}, lockd.MinPeerKey)
	fOther := peer(t, fa, otherKey, "lockd-otherkey")
	ctx := context.Background()
	billing := fa.client("connect", "tok-billing", nil)
	giver := open(t, billing, 0)
	_, err = billing.Lock(ctx, lockReq(giver, item("billing/1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	tok := getToken(t, billing, giver)
	parts := strings.Split(tok, ".")
	body, err := base64.RawURLEncoding.DecodeString(parts[3])
	require.NoError(t, err)
	parts[3] = base64.RawURLEncoding.EncodeToString(bytes.Replace(body, []byte(`"billing"`), []byte(`"reports"`), 1))
	edited := strings.Join(parts, ".")

	for _, c := range []struct {
		name   string
		f      *fixture
		bearer string
		token  string
		code   connect.Code
		reason pb.LockError_Reason
	}{
		{"no peer key", fNoKey, "tok-billing", tok, connect.CodeFailedPrecondition, pb.LockError_REASON_OTHER_LOCKD},
		{"another cluster's key", fOther, "tok-billing", tok, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_TOKEN},
		{"edited owner", fb, "tok-reports", edited, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_TOKEN},
		{"another principal's", fb, "tok-reports", tok, connect.CodePermissionDenied, pb.LockError_REASON_NOT_YOUR_TOKEN},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := c.f.client("connect", c.bearer, nil)
			s := open(t, cl, 0)
			before := describe(t, cl, s)
			_, err := setToken(cl, s, c.token)
			requireRefusal(t, err, c.code, c.reason)
			t.Log(err)
			refusedLogged(t, c.f, c.reason)
			now := describe(t, cl, s)
			require.Equal(t, before.Identity, now.Identity)
			require.Empty(t, now.Locks)
			require.Len(t, describe(t, billing, giver).Locks, 1)
			closeSession(t, cl, s)
		})
	}

	t.Run("granted by adopt_from", func(t *testing.T) {
		audit := fb.client("grpc", "tok-audit", nil)
		s := open(t, audit, 0)
		res, err := setToken(audit, s, tok)
		require.NoError(t, err)
		require.Len(t, res.Locks, 1)
		closeSession(t, audit, s) // the last of its identity on B: leaves, the giver still holds
		require.Len(t, describe(t, billing, giver).Locks, 1)
		requireFree(t, billing, "billing/1", false)
	})

	t.Run("released meanwhile", func(t *testing.T) {
		closeSession(t, billing, giver) // releases billing/1
		cl := fb.client("connect", "tok-billing", nil)
		s := open(t, cl, 0)
		_, err := setToken(cl, s, tok)
		requireRefusal(t, err, connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_TOKEN)
		require.Empty(t, describe(t, cl, s).Locks)
		closeSession(t, cl, s)
	})
}

// A peer token naming a lock unlocked since it was read (an Unlock
// answered, the GetToken after it not): another lockd adopts the token's
// other locks and skips the released one, which its Adopt finds no holder
// of: it is not adopted, not held, and the answer does not name it.
func TestPeerToken_ReleasedLockIsSkippedTheRestAdopted(t *testing.T) {
	fa, fb := twoLockds(t, fixtureOptions{opts: lockd.Options{PeerKey: peerKey}}, lockd.Options{PeerKey: peerKey})
	ca, cb := fa.client("connect", "", nil), fb.client("connect", "", nil)
	ctx := context.Background()
	a := open(t, ca, 0)
	x, err := ca.Lock(ctx, lockReq(a, item("x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	g, err := ca.Lock(ctx, lockReq(a, item("g/1", pb.Access_ACCESS_EXCLUSIVE), item("g/2", pb.Access_ACCESS_SHARED)))
	require.NoError(t, err)
	tok := getToken(t, ca, a)
	_, err = ca.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: a, LockId: x.Msg.Lock.LockId}))
	require.NoError(t, err)
	requireFree(t, cb, "x", true) // A was x's only holder: released

	b := open(t, cb, 0)
	res, err := setToken(cb, b, tok)
	require.NoError(t, err)
	require.Len(t, res.Locks, 1, "only the group is adopted")
	require.Equal(t, g.Msg.Lock.Token, res.Locks[0].Token)
	require.Equal(t, "g/1", res.Locks[0].Items[0].Id)
	require.Len(t, describe(t, cb, b).Locks, 1)
	require.Contains(t, fb.logs.String(), "not adopted")
	requireFree(t, ca, "x", true) // B holds no share of x
	requireFree(t, ca, "g/1", false)

	closeSession(t, ca, a) // the giver leaves: B still holds the group
	requireFree(t, ca, "g/1", false)
	_, err = cb.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: b}))
	require.NoError(t, err)
	requireFree(t, ca, "g/1", true)
	closeSession(t, cb, b)
}

// A lock taken in mode combined cannot move to another lockd: the peer
// token names it, and the other lockd refuses the token whole.
func TestPeerToken_CombinedLocksAreRefused(t *testing.T) {
	fa, fb := twoLockds(t, fixtureOptions{opts: lockd.Options{PeerKey: peerKey}, combined: true}, lockd.Options{PeerKey: peerKey})
	ca, cb := fa.client("connect", "", nil), fb.client("connect", "", nil)
	ctx := context.Background()
	a := open(t, ca, 0)
	_, err := ca.Lock(ctx, lockReq(a, item("c", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	tok := getToken(t, ca, a)
	b := open(t, cb, 0)
	_, err = setToken(cb, b, tok)
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_INCOMPATIBLE_MODE)
	require.Contains(t, err.Error(), "mode legacy or combined")
	require.Empty(t, describe(t, cb, b).Locks)
	requireFree(t, cb, "c", false)
	closeSession(t, cb, b)
	closeSession(t, ca, a)
}

// A peer key shorter than lockd.MinPeerKey is refused.
func TestPeerToken_ShortKeyIsRefused(t *testing.T) {
	_, err := lockd.New(nil, &lockd.Options{PeerKey: []byte("short")})
	require.Error(t, err)
}
