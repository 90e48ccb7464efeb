package lockd_test

import (
	"bytes"
	"context"
	"errors"
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

// liveSessions is the number of live sessions ListSessions reports (open
// mode lets any caller list).
func liveSessions(t *testing.T, c lockstepv1connect.LockServiceClient) int {
	t.Helper()
	res, err := c.ListSessions(context.Background(), connect.NewRequest(&pb.ListSessionsRequest{}))
	require.NoError(t, err)
	return len(res.Msg.Sessions)
}

// heldBy is the number of locks session s holds.
func heldBy(t *testing.T, c lockstepv1connect.LockServiceClient, s string) int {
	t.Helper()
	res, err := c.DescribeSession(context.Background(), connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err)
	return len(res.Msg.Locks)
}

// requireLimit checks a limit's refusal: its code, and a message naming
// the lockd flag that raises the limit.
func requireLimit(t *testing.T, err error, code connect.Code, flag string) {
	t.Helper()
	reason := pb.LockError_REASON_INVALID_ARGUMENT
	if code == connect.CodeResourceExhausted {
		reason = pb.LockError_REASON_UNSPECIFIED
	}
	requireRefusal(t, err, code, reason)
	require.Contains(t, err.Error(), "lockd --"+flag+" raises it")
}

func TestLimits_SessionNameTooLongOpensNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Limits: lockd.Limits{MaxSessionName: 8}}})
	c := f.client("connect", "", nil)
	_, err := c.OpenSession(t.Context(), connect.NewRequest(&pb.OpenSessionRequest{Name: "123456789"}))
	requireLimit(t, err, connect.CodeInvalidArgument, "max-session-name")
	require.Contains(t, err.Error(), "name (bytes) is 9: at most 8")
	require.Zero(t, liveSessions(t, c), "the refused OpenSession opened nothing")
	_, err = c.OpenSession(t.Context(), connect.NewRequest(&pb.OpenSessionRequest{Name: "12345678"}))
	require.NoError(t, err, "a name at the limit is accepted")
}

func TestLimits_CommentTooLongTakesNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Limits: lockd.Limits{MaxComment: 4}}})
	c := f.client("grpc", "", nil)
	s := open(t, c, 0)
	req := lockReq(s, item("c/1", pb.Access_ACCESS_EXCLUSIVE))
	req.Msg.Comment = "12345"
	_, err := c.Lock(t.Context(), req)
	requireLimit(t, err, connect.CodeInvalidArgument, "max-comment")
	require.Zero(t, heldBy(t, c, s), "the refused Lock took nothing")
	other := open(t, c, 0)
	_, err = c.TryLock(t.Context(), lockReq(other, item("c/1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "the id is free for another session")
}

func TestLimits_TooManyIDsTakesNothing(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Limits: lockd.Limits{MaxIDsPerRequest: 2}}})
	c := f.client("json", "", nil)
	s := open(t, c, 0)
	three := []*pb.LockItem{item("g/1", pb.Access_ACCESS_EXCLUSIVE), item("g/2", pb.Access_ACCESS_EXCLUSIVE), item("g/3", pb.Access_ACCESS_EXCLUSIVE)}
	for _, call := range []func(context.Context, *connect.Request[pb.LockRequest]) (*connect.Response[pb.LockResponse], error){c.Lock, c.TryLock} {
		_, err := call(t.Context(), lockReq(s, three...))
		requireLimit(t, err, connect.CodeInvalidArgument, "max-ids-per-request")
		require.Contains(t, err.Error(), "items (ids in one request) is 3: at most 2")
	}
	require.Zero(t, heldBy(t, c, s))
	_, err := c.TryLock(t.Context(), lockReq(open(t, c, 0), three...))
	requireLimit(t, err, connect.CodeInvalidArgument, "max-ids-per-request")
	_, err = c.TryLock(t.Context(), lockReq(open(t, c, 0), three[:2]...))
	require.NoError(t, err, "two ids are within the limit, and free")
}

func TestLimits_SessionsPerPrincipal(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t), Limits: lockd.Limits{MaxSessionsPerPrincipal: 2}}})
	billing, reports := f.client("connect", "tok-billing", nil), f.client("grpc", "tok-reports", nil)
	first, _ := open(t, billing, 0), open(t, billing, 0)
	_, err := billing.OpenSession(t.Context(), connect.NewRequest(&pb.OpenSessionRequest{}))
	requireLimit(t, err, connect.CodeResourceExhausted, "max-sessions-per-principal")
	require.Contains(t, err.Error(), `principal "billing" has 2 live sessions: at most 2`)
	refusedLogged(t, f, pb.LockError_REASON_UNSPECIFIED)
	open(t, reports, 0) // another principal's count is its own

	// The refusal opened nothing: billing's first session still works, and
	// once it closes billing may open one again.
	_, err = billing.KeepAlive(t.Context(), connect.NewRequest(&pb.KeepAliveRequest{SessionId: first}))
	require.NoError(t, err)
	_, err = billing.CloseSession(t.Context(), connect.NewRequest(&pb.CloseSessionRequest{SessionId: first}))
	require.NoError(t, err)
	open(t, billing, 0)
}

func TestLimits_WaitsPerSession(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Limits: lockd.Limits{MaxWaitsPerSession: 1}}})
	c := f.client("grpc", "", nil)
	holder, waiter := open(t, c, 0), open(t, c, 0)
	held, err := c.Lock(t.Context(), lockReq(holder, item("w/1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	waited := make(chan error, 1)
	wctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	go func() {
		for {
			_, err := c.Lock(wctx, lockReq(waiter, item("w/1", pb.Access_ACCESS_EXCLUSIVE)))
			if connect.CodeOf(err) != connect.CodeResourceExhausted || wctx.Err() != nil {
				waited <- err
				return
			}
			// A probe below was in flight, and counted: wait again.
		}
	}()
	// The second wait is refused once the first is in flight.
	var refused error
	for deadline := time.Now().Add(10 * time.Second); refused == nil; {
		require.False(t, time.Now().After(deadline), "a second Lock of the session was never refused")
		sctx, scancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		_, err := c.Lock(sctx, lockReq(waiter, item("w/2", pb.Access_ACCESS_EXCLUSIVE)))
		scancel()
		if connect.CodeOf(err) == connect.CodeResourceExhausted {
			refused = err
		} else {
			require.True(t, errors.Is(err, context.DeadlineExceeded) || connect.CodeOf(err) == connect.CodeDeadlineExceeded || err == nil, "%v", err)
			if err == nil { // granted before the first wait began: let go and retry
				_, err = c.UnlockAll(t.Context(), connect.NewRequest(&pb.UnlockAllRequest{SessionId: waiter}))
				require.NoError(t, err)
			}
		}
	}
	requireLimit(t, refused, connect.CodeResourceExhausted, "max-waits-per-session")
	require.Zero(t, heldBy(t, c, waiter), "the refused Lock took nothing")
	// TryLock does not wait, so it is not counted. The last probe's
	// intention lock on the ancestor "w", given up at its deadline, may
	// still be letting go, which TryLock reports as busy: try again until
	// it has, and never see the limit.
	var tryErr error
	require.Eventually(t, func() bool {
		_, tryErr = c.TryLock(t.Context(), lockReq(waiter, item("w/3", pb.Access_ACCESS_EXCLUSIVE)))
		return tryErr == nil || connect.CodeOf(tryErr) == connect.CodeResourceExhausted
	}, 10*time.Second, 10*time.Millisecond, "TryLock of w/3 stayed busy")
	require.NoError(t, tryErr, "TryLock does not wait, so it is not counted")

	_, err = c.Unlock(t.Context(), connect.NewRequest(&pb.UnlockRequest{SessionId: holder, LockId: held.Msg.Lock.LockId}))
	require.NoError(t, err)
	require.NoError(t, <-waited, "the first wait is granted")
	_, err = c.Lock(t.Context(), lockReq(waiter, item("w/2", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "with no wait in flight the session may wait again")
}

// A body over the limit is refused from its declared length, before any
// of it is read; one within is served.
func TestLimits_BodyOverTheLimitIsRefusedUnread(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t), Limits: lockd.Limits{MaxBodyBytes: 1024}}})
	post := func(token string, body io.Reader, length int64) (*http.Response, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+"/lockstep.v1.LockService/OpenSession", body)
		require.NoError(t, err)
		req.ContentLength = length
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	// A body that never comes: answered at once all the same.
	never, w := io.Pipe()
	defer w.Close()
	res, body := post("tok-billing", never, 1<<30)
	require.Equal(t, http.StatusBadRequest, res.StatusCode, body)
	require.Contains(t, body, "the request body (bytes) is 1073741824: at most 1029 (a limit of this lockd: lockd --max-body-bytes raises it)")

	padded := `{"name": "` + strings.Repeat("x", 2000) + `"}`
	res, body = post("tok-billing", strings.NewReader(padded), -1) // no declared length: cut while read
	require.NotEqual(t, http.StatusOK, res.StatusCode, body)
	res, body = post("tok-billing", bytes.NewReader([]byte(`{"name": "ok"}`)), -1)
	require.Equal(t, http.StatusOK, res.StatusCode, body)
}

// An unauthenticated request is refused from its headers: its body, which
// here never comes, is not waited for, let alone read.
func TestLimits_UnauthenticatedBodyIsNeverRead(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}})
	for _, token := range []string{"", "tok-wrong"} {
		never, w := io.Pipe()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+"/lockstep.v1.LockService/OpenSession", never)
		require.NoError(t, err)
		req.ContentLength = 100 // within every limit: only authentication can refuse it
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		done := make(chan *http.Response, 1)
		go func() {
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		select {
		case res := <-done:
			require.NotNil(t, res)
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			require.Equal(t, http.StatusUnauthorized, res.StatusCode, string(b))
			require.Contains(t, string(b), "unauthenticated")
		case <-time.After(10 * time.Second):
			t.Fatal("the server waited for the body of an unauthenticated request")
		}
		w.Close()
	}
	refusedLogged(t, f, pb.LockError_REASON_UNAUTHENTICATED)
}

// Negative limits and a comment limit above the ceiling are refused.
func TestLimits_NewRefusesBadLimits(t *testing.T) {
	for _, l := range []lockd.Limits{{MaxBodyBytes: -1}, {MaxSessionName: -1}, {MaxComment: lockd.CommentCeiling + 1},
		{MaxIDsPerRequest: -1}, {MaxSessionsPerPrincipal: -1}, {MaxWaitsPerSession: -1}} {
		_, err := lockd.New(nopLocker{}, &lockd.Options{Limits: l})
		var ce *lockstep.ConfigError
		require.True(t, errors.As(err, &ce), "%+v: %v", l, err)
		require.True(t, strings.HasPrefix(ce.Field, "Limits."), ce.Field)
	}
}

// nopLocker is a Locker New accepts; the tests above never call it.
type nopLocker struct{ lockstep.GroupLocker }
