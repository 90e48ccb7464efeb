package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// startLockd runs lockd with args until the test ends, and returns its URL.
func startLockd(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, &stdout, &stderr, noEnv, ready) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Error("lockd did not shut down")
		}
	})
	select {
	case url := <-ready:
		return url
	case err := <-done:
		t.Fatalf("lockd stopped: %v\n%s", err, stderr.String())
	}
	return ""
}

// scrape GETs /metrics and returns each sample line's value by its series
// ("name{labels}" as the text format writes it).
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	res, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err, line)
		out[line[:i]] = v
	}
	return out
}

// lockd serves /metrics over HTTP: its own counters (sessions open, calls
// by method and code, refusals by reason, identity joins) and its Locker's
// through the adapters/prometheus Observer; each moves with the calls.
func TestMetrics_ScrapedOverHTTPMoveWithTheCalls(t *testing.T) {
	url := startLockd(t)
	ctx := context.Background()
	c := lockstepv1connect.NewLockServiceClient(http.DefaultClient, url, connect.WithProtoJSON())
	before := scrape(t, url)
	require.Zero(t, before[`lockd_sessions_open`])
	require.Contains(t, before, `go_goroutines`, "the Go runtime's collector is registered too")

	a, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	require.NoError(t, err)
	b, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	require.NoError(t, err)
	_, err = c.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: a.Msg.SessionId, Items: []*pb.LockItem{{Id: "m-1"}}}))
	require.NoError(t, err)
	_, err = c.TryLock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: b.Msg.SessionId, Items: []*pb.LockItem{{Id: "m-1"}}}))
	require.Equal(t, connect.CodeFailedPrecondition, connect.CodeOf(err))
	_, err = c.SetToken(ctx, connect.NewRequest(&pb.SetTokenRequest{SessionId: b.Msg.SessionId, Token: "nonsense"}))
	require.Equal(t, connect.CodeInvalidArgument, connect.CodeOf(err))
	tok, err := c.GetToken(ctx, connect.NewRequest(&pb.GetTokenRequest{SessionId: a.Msg.SessionId}))
	require.NoError(t, err)
	_, err = c.SetToken(ctx, connect.NewRequest(&pb.SetTokenRequest{SessionId: b.Msg.SessionId, Token: tok.Msg.Token}))
	require.NoError(t, err)

	m := scrape(t, url)
	for series, want := range map[string]float64{
		`lockd_sessions_open`:                                                   2,
		`lockd_rpcs_total{code="ok",method="OpenSession"}`:                      2,
		`lockd_rpcs_total{code="ok",method="Lock"}`:                             1,
		`lockd_rpcs_total{code="failed_precondition",method="TryLock"}`:         1,
		`lockd_rpcs_total{code="invalid_argument",method="SetToken"}`:           1,
		`lockd_rpcs_total{code="ok",method="SetToken"}`:                         1,
		`lockd_error_answers_total{reason="locked"}`:                            1,
		`lockd_error_answers_total{reason="invalid_token"}`:                     1,
		`lockd_identity_joins_total`:                                            1,
		`lockstep_acquisitions_total{call="lock",mode="new",result="acquired"}`: 1,
	} {
		require.Equal(t, want, m[series]-before[series], "%s", series)
	}
	require.Equal(t, 1.0, m[`lockstep_acquisitions_total{call="try_lock",mode="new",result="not_acquired"}`], "the Locker's TryLock that met the holder")

	for _, s := range []string{a.Msg.SessionId, b.Msg.SessionId} {
		_, err = c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: s}))
		require.NoError(t, err)
	}
	m2 := scrape(t, url)
	require.Zero(t, m2[`lockd_sessions_open`])
	require.Equal(t, 2.0, m2[`lockd_rpcs_total{code="ok",method="CloseSession"}`])
	require.Equal(t, 1.0, m2[`lockstep_releases_total{mode="new",result="released"}`], "the last session's close released m-1")
}

func TestMetrics_OffServesNoEndpoint(t *testing.T) {
	url := startLockd(t, "--metrics=false")
	res, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNotFound, res.StatusCode)
}
