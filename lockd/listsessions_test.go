package lockd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// listPrincipals: billing and reports lock; ops may only list sessions.
func listPrincipals(t *testing.T) *lockd.Principals {
	t.Helper()
	doc := fmt.Sprintf(`{"principals": [
		{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"]},
		{"name": "reports", "token_sha256": [%q], "prefixes": ["reports/"]},
		{"name": "ops", "token_sha256": [%q], "prefixes": ["ops/"], "list_sessions": true}
	]}`, lockd.TokenDigest("tok-billing"), lockd.TokenDigest("tok-reports"), lockd.TokenDigest("tok-ops"))
	p, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	return p
}

// rawList calls ListSessions as lockctl sessions does: a plain POST of JSON
// with a bearer token. It returns the status and the decoded body.
func rawList(t *testing.T, url, token string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/lockstep.v1.LockService/ListSessions", bytes.NewReader([]byte("{}")))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	return res.StatusCode, body
}

// A principal granted list_sessions sees every live session with its
// locks, in the JSON shape lockctl sessions reads; any other is refused and
// the refusal logged; the sessions listed are untouched.
func TestListSessions_OnlyForAGrantedPrincipal(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: listPrincipals(t)}})
	ctx := context.Background()
	billing := f.client("connect", "tok-billing", nil)
	s := open(t, billing, 0)
	_, err := billing.Lock(ctx, lockReq(s, item("billing/7", pb.Access_ACCESS_SHARED), item("billing/8", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	reports := f.client("grpc", "tok-reports", nil)
	r := open(t, reports, 0)

	_, err = billing.ListSessions(ctx, connect.NewRequest(&pb.ListSessionsRequest{}))
	requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NOT_YOUR_SESSION)
	require.Contains(t, err.Error(), `grant it "list_sessions": true`)
	refusedLogged(t, f, pb.LockError_REASON_NOT_YOUR_SESSION)
	code, _ := rawList(t, f.url, "")
	require.Equal(t, http.StatusUnauthorized, code)
	code, _ = rawList(t, f.url, "tok-reports")
	require.Equal(t, http.StatusForbidden, code)

	list, err := f.client("grpc", "tok-ops", nil).ListSessions(ctx, connect.NewRequest(&pb.ListSessionsRequest{}))
	require.NoError(t, err)
	require.Len(t, list.Msg.Sessions, 2)
	byID := map[string]*pb.DescribeSessionResponse{}
	for _, d := range list.Msg.Sessions {
		byID[d.SessionId] = d
	}
	require.Equal(t, "billing", byID[s].Principal)
	require.Len(t, byID[s].Locks, 1)
	require.Equal(t, "reports", byID[r].Principal)
	require.Empty(t, byID[r].Locks)

	code, body := rawList(t, f.url, "tok-ops")
	require.Equal(t, http.StatusOK, code)
	sessions := body["sessions"].([]any)
	require.Len(t, sessions, 2)
	for _, x := range sessions {
		m := x.(map[string]any)
		if m["sessionId"] != s {
			continue
		}
		require.Equal(t, "billing", m["principal"])
		require.Equal(t, "10s", m["ttl"])
		require.Regexp(t, `^i-[0-9a-f]{16}$`, m["identity"], "lockctl sessions reads identity and identitySessions")
		require.Equal(t, 1.0, m["identitySessions"])
		lock := m["locks"].([]any)[0].(map[string]any)
		require.Equal(t, "l-1", lock["lockId"])
		items := lock["items"].([]any)
		require.Equal(t, map[string]any{"id": "billing/7", "access": "ACCESS_SHARED"}, items[0])
		require.Equal(t, map[string]any{"id": "billing/8"}, items[1])
	}
}

// In open mode (loopback only) any caller may list.
func TestListSessions_OpenMode(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("json", "", nil)
	s := open(t, c, 0)
	code, body := rawList(t, f.url, "")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, body["sessions"], 1)
	require.Equal(t, s, body["sessions"].([]any)[0].(map[string]any)["sessionId"])
}
