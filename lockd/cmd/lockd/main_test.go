package main

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

func noEnv(string) string { return "" }

// With no flags lockd serves on the embedded model in open mode, prints its
// address, answers health and lock calls, and shuts down cleanly on cancel.
func TestRun_ServesTheEmbeddedModelAndShutsDownGracefully(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, nil, &stdout, &stderr, noEnv, ready) }()
	var url string
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("lockd stopped: %v\n%s", err, stderr.String())
	}
	hc := grpchealth.NewClient(http.DefaultClient, url)
	res, err := hc.Check(ctx, &grpchealth.CheckRequest{Service: lockstepv1connect.LockServiceName})
	require.NoError(t, err)
	require.Equal(t, grpchealth.StatusServing, res.Status)

	c := lockstepv1connect.NewLockServiceClient(http.DefaultClient, url, connect.WithProtoJSON())
	s, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	require.NoError(t, err)
	l, err := c.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: s.Msg.SessionId, Items: []*pb.LockItem{{Id: "invoice-1"}}}))
	require.NoError(t, err)
	require.NotZero(t, l.Msg.Lock.Token, "lockd runs with fencing")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("lockd did not shut down")
	}
	require.Contains(t, stdout.String(), "lockd: serving lockstep.v1 on "+url)
	require.Contains(t, stdout.String(), "lockd: lockstep "+lockstep.Version+" (module ", "the version from the build information")
}

// Open mode is for loopback only; a cluster named in the environment is
// refused rather than silently replaced by the embedded model; bad flags say
// what to fix.
func TestRun_RefusesUnsafeOrUnsupportedSettings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--listen", "0.0.0.0:0"}, want: "not a loopback address and no --principals"},
		{env: map[string]string{"LOCKSTEP_HOSTS": "10.0.0.1"}, want: "LOCKSTEP_HOSTS is set, but this lockd serves only the embedded model"},
		{args: []string{"--require-client-cert"}, want: "need TLS"},
		{args: []string{"--server-cert", "x.pem"}, want: "go together"},
		{args: []string{"--session-ttl", "0s"}, want: "must be positive"},
		{env: map[string]string{"LOCKSTEP_LOCKD_MAX_WAIT": "soon"}, want: "LOCKSTEP_LOCKD_MAX_WAIT"},
		{args: []string{"--principals", "/nonexistent.json"}, want: "principals file"},
		{args: []string{"extra"}, want: "unexpected argument"},
	} {
		getenv := func(k string) string { return tc.env[k] }
		var out bytes.Buffer
		err := run(context.Background(), tc.args, &out, &out, getenv, nil)
		require.ErrorContains(t, err, tc.want, "%v %v", tc.args, tc.env)
	}
}
