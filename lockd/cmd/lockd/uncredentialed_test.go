package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// bearerTransport adds a bearer token to an HTTP client's requests.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// With principals, the lock service refuses a caller without a credential,
// while the health service and /metrics answer one (docs/security.md,
// "What answers without a credential"): health says SERVING or
// NOT_SERVING, and the metrics carry no lock id, session name, session id
// or token.
func TestRun_HealthAndMetricsAnswerWithoutACredential(t *testing.T) {
	file := filepath.Join(t.TempDir(), "principals.json")
	doc := fmt.Sprintf(`{"principals": [{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"]}]}`, lockd.TokenDigest("tok-billing-secret"))
	require.NoError(t, os.WriteFile(file, []byte(doc), 0o600))
	url := startLockd(t, "--principals", file)
	ctx := context.Background()

	anon := lockstepv1connect.NewLockServiceClient(http.DefaultClient, url, connect.WithProtoJSON())
	_, err := anon.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	require.Equal(t, connect.CodeUnauthenticated, connect.CodeOf(err), "the lock service needs a credential")

	c := lockstepv1connect.NewLockServiceClient(&http.Client{Transport: bearerTransport("tok-billing-secret")}, url, connect.WithProtoJSON())
	s, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{Name: "nightly-export"}))
	require.NoError(t, err)
	_, err = c.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: s.Msg.SessionId, Items: []*pb.LockItem{{Id: "billing/invoice-4242"}}}))
	require.NoError(t, err)

	hc := grpchealth.NewClient(http.DefaultClient, url)
	for _, svc := range []string{"", lockstepv1connect.LockServiceName} {
		res, err := hc.Check(ctx, &grpchealth.CheckRequest{Service: svc})
		require.NoError(t, err, "health %q answers without a credential", svc)
		require.Equal(t, grpchealth.StatusServing, res.Status)
	}

	res, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "/metrics answers without a credential")
	require.Contains(t, string(body), "lockd_sessions_open 1")
	for _, secret := range []string{"invoice-4242", "nightly-export", s.Msg.SessionId, "tok-billing-secret"} {
		require.NotContains(t, string(body), secret)
	}
}
