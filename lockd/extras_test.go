package lockd_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// Seed 003's extras through the service: deadlock errors with their cycle
// and comments, UnlockAll, masks and their grants.

func withComment(r *connect.Request[pb.LockRequest], comment string) *connect.Request[pb.LockRequest] {
	r.Msg.Comment = comment
	return r
}

// Two sessions each hold one id and wait for the other's: the later wait is
// the victim, Aborted with DEADLOCK and the cycle (ids, owners, the
// comments); after its UnlockAll the other is granted.
func TestDeadlock_VictimGetsTheCycleAndUnlockAllFreesTheOther(t *testing.T) {
	f := newFixture(t, fixtureOptions{deadlock: &lockstep.DeadlockDetection{After: 100 * time.Millisecond, Every: 100 * time.Millisecond}})
	c := f.client("grpc", "", nil)
	ctx := context.Background()
	a, b := open(t, c, 30*time.Second), open(t, c, 30*time.Second)
	_, err := c.Lock(ctx, lockReq(a, item("x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = c.Lock(ctx, lockReq(b, item("y", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)

	aDone := make(chan error, 1)
	go func() {
		_, err := c.Lock(ctx, withComment(lockReq(a, item("y", pb.Access_ACCESS_EXCLUSIVE)), "job A"))
		aDone <- err
	}()
	time.Sleep(300 * time.Millisecond) // a's wait begins first: b's is the victim
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = c.Lock(wctx, withComment(lockReq(b, item("x", pb.Access_ACCESS_EXCLUSIVE)), "job B"))
	le := requireRefusal(t, err, connect.CodeAborted, pb.LockError_REASON_DEADLOCK)
	require.Len(t, le.Cycle, 2)
	require.Equal(t, "x", le.Cycle[0].Waits.Id, "the cycle starts with the victim's wait")
	require.Equal(t, "job B", le.Cycle[0].Comment)
	require.Equal(t, "y", le.Cycle[1].Waits.Id)
	require.Equal(t, "job A", le.Cycle[1].Comment)
	for _, m := range le.Cycle {
		require.Equal(t, "lockd-test", m.Process)
		require.NotEmpty(t, m.HeldBy, "the owner holding what the member waits for")
		require.Equal(t, pb.Access_ACCESS_EXCLUSIVE, m.HeldIn)
	}
	require.Contains(t, le.Hint, "UnlockAll")
	select {
	case err := <-aDone:
		t.Fatalf("a was granted while b still holds y: %v", err)
	default:
	}

	res, err := c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: b}))
	require.NoError(t, err)
	require.Len(t, res.Msg.LockIds, 1, "b held y")
	select {
	case err := <-aDone:
		require.NoError(t, err, "a is granted once the victim let go")
	case <-time.After(30 * time.Second):
		t.Fatal("a was not granted y after b's UnlockAll")
	}
}

// UnlockAll releases every lock of the session, reentrant counts and
// groups included, keeps the session open, and is refused for another
// principal's session.
func TestUnlockAll_ReleasesTheSessionsLocksAndKeepsItOpen(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}})
	c := f.client("connect", "tok-billing", nil)
	ctx := context.Background()
	s := open(t, c, 0)
	var handles []string
	for _, items := range [][]*pb.LockItem{
		{item("billing/1", pb.Access_ACCESS_EXCLUSIVE)},
		{item("billing/1", pb.Access_ACCESS_EXCLUSIVE)}, // reentrant
		{item("billing/2", pb.Access_ACCESS_SHARED), item("billing/3", pb.Access_ACCESS_EXCLUSIVE)},
	} {
		r, err := c.Lock(ctx, lockReq(s, items...))
		require.NoError(t, err)
		handles = append(handles, r.Msg.Lock.LockId)
	}
	other := f.client("json", "tok-reports", nil)
	_, err := other.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: s}))
	requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NOT_YOUR_SESSION)
	_, err = c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: "nope"}))
	requireRefusal(t, err, connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_SESSION)

	res, err := c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: s}))
	require.NoError(t, err)
	require.Equal(t, handles, res.Msg.LockIds, "every handle, in the order Lock returned them")
	require.Empty(t, res.Msg.LostLockIds)
	d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err, "the session stays open")
	require.Empty(t, d.Msg.Locks)

	s2 := open(t, c, 0)
	_, err = c.TryLock(ctx, lockReq(s2, item("billing/1", pb.Access_ACCESS_EXCLUSIVE), item("billing/2", pb.Access_ACCESS_EXCLUSIVE), item("billing/3", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "every id is free again")
	res, err = c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: s}))
	require.NoError(t, err, "nothing held: nothing to do")
	require.Empty(t, res.Msg.LockIds)
	_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: handles[0]}))
	requireRefusal(t, err, connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_LOCK)
}

// A mask "dir/*" excludes every child of dir, named before or not, and dir
// itself; an unrelated id stays free; two shared masks share.
func TestMask_ExcludesEveryChild(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("grpc", "", nil)
	ctx := context.Background()
	a, b := open(t, c, 0), open(t, c, 0)
	m, err := c.Lock(ctx, lockReq(a, item("dir/*", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	for _, id := range []string{"dir/f", "dir/sub/g", "dir/new", "dir"} {
		_, err := c.TryLock(ctx, lockReq(b, item(id, pb.Access_ACCESS_EXCLUSIVE)))
		requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
	}
	_, err = c.TryLock(ctx, lockReq(b, item("elsewhere/f", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: a, LockId: m.Msg.Lock.LockId}))
	require.NoError(t, err)
	_, err = c.TryLock(ctx, lockReq(b, item("dir/f", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "a child after the mask's release")
	_, err = c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: b}))
	require.NoError(t, err)

	_, err = c.Lock(ctx, lockReq(a, item("dir/*", pb.Access_ACCESS_SHARED)))
	require.NoError(t, err)
	_, err = c.TryLock(ctx, lockReq(b, item("dir/*", pb.Access_ACCESS_SHARED)))
	require.NoError(t, err, "two readers of one mask")
	_, err = c.TryLock(ctx, lockReq(open(t, c, 0), item("dir/f", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)

	for _, bad := range []string{"*", "*/a"} {
		_, err = c.TryLock(ctx, lockReq(a, item(bad, pb.Access_ACCESS_EXCLUSIVE)))
		requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ID)
	}
}

// A mask is granted when every id it names is: "billing/*" and
// "billing/eu/*" to a principal granted "billing/"; not "bill*" nor a mask
// of another's prefix; and not "a/*" to a principal granted the literal
// prefix "a/*", whose text it matches but whose ids ("a/x") it is not.
func TestSecurity_MaskReachingOutsideTheGrantIsPermissionDenied(t *testing.T) {
	doc := fmt.Sprintf(`{"principals": [
		{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"]},
		{"name": "star", "token_sha256": [%q], "prefixes": ["a/*"]}
	]}`, lockd.TokenDigest("tok-billing"), lockd.TokenDigest("tok-star"))
	p, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: p}})
	ctx := context.Background()
	c := f.client("connect", "tok-billing", nil)
	s := open(t, c, 0)
	for _, id := range []string{"billing/*", "billing/eu/*"} {
		r, err := c.TryLock(ctx, lockReq(s, item(id, pb.Access_ACCESS_EXCLUSIVE)))
		require.NoError(t, err, id)
		_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: r.Msg.Lock.LockId}))
		require.NoError(t, err)
	}
	for _, items := range [][]*pb.LockItem{
		{item("bill*", pb.Access_ACCESS_EXCLUSIVE)},
		{item("reports/*", pb.Access_ACCESS_SHARED)},
		{item("billing/1", pb.Access_ACCESS_EXCLUSIVE), item("a/*", pb.Access_ACCESS_SHARED)},
	} {
		_, err := c.Lock(ctx, lockReq(s, items...))
		requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NO_PREFIX)
	}
	star := f.client("grpc", "tok-star", nil)
	ss := open(t, star, 0)
	_, err = star.TryLock(ctx, lockReq(ss, item("a/*", pb.Access_ACCESS_EXCLUSIVE)))
	le := requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NO_PREFIX)
	require.Equal(t, "a/*", le.Id)
	require.Contains(t, err.Error(), `names every id starting "a/"`)
	refusedLogged(t, f, pb.LockError_REASON_NO_PREFIX)
	_, err = star.TryLock(ctx, lockReq(ss, item("a/*x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "an id under its literal prefix that is no mask")
}

func TestLock_CommentLongerThanTheBoundIsInvalidArgument(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("json", "", nil)
	s := open(t, c, 0)
	_, err := c.Lock(context.Background(), withComment(lockReq(s, item("x", pb.Access_ACCESS_EXCLUSIVE)), strings.Repeat("c", 257)))
	requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ARGUMENT)
	r, err := c.TryLock(context.Background(), withComment(lockReq(s, item("x", pb.Access_ACCESS_EXCLUSIVE)), strings.Repeat("c", 256)))
	require.NoError(t, err, "nothing was held by the refused call")
	require.NotEmpty(t, r.Msg.Lock.LockId)
}

// A LockRequest whose comment is not UTF-8 (sent as raw protobuf, which
// the Go client refuses to build) is refused InvalidArgument by the
// server's decoding, and nothing is taken.
func TestLock_CommentThatIsNotUTF8IsRefusedByTheServer(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("grpc", "", nil)
	a := open(t, c, 30*time.Second)
	body := []byte{0x0a, byte(len(a))}
	body = append(body, a...)
	body = append(body, 0x12, 0x03, 0x0a, 0x01, 'x') // items: {id: "x"}
	body = append(body, 0x1a, 0x04, 'o', 'k', 0xff, 0xfe)
	res, err := http.Post(f.url+lockstepv1connect.LockServiceLockProcedure, "application/proto", bytes.NewReader(body))
	require.NoError(t, err)
	msg, _ := io.ReadAll(res.Body)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusBadRequest, res.StatusCode, "%s", msg)
	require.Contains(t, strings.ToLower(string(msg)), "utf-8")

	b := open(t, c, 30*time.Second)
	_, err = c.TryLock(context.Background(), lockReq(b, item("x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "nothing was taken")
}
