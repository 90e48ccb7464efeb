package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"github.com/gocql/gocql"
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
	require.True(t, strings.HasPrefix(stdout.String(), "lockd: serving lockstep.v1 on "+url+" (store: embedded model;"),
		"the first line says where lockd serves and on which store: %q", stdout.String())
	require.Contains(t, stdout.String(), "\nlockd: lockd ", "the version from the build information")
	require.Contains(t, stdout.String(), " (lockstep "+lockstep.Version+", go1.", "the library's release and the Go version")
}

// Open mode is for loopback only; bad flags, bad connection settings and a
// cluster that cannot be reached say what to fix.
func TestRun_RefusesUnsafeOrUnsupportedSettings(t *testing.T) {
	shortKey := filepath.Join(t.TempDir(), "peer.key")
	require.NoError(t, os.WriteFile(shortKey, []byte("too short\n"), 0o600))
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--listen", "0.0.0.0:0"}, want: "not a loopback address and no --principals"},
		{env: map[string]string{"LOCKSTEP_PORT": "x"}, want: `LOCKSTEP_PORT="x" (for --port): want a port number from 1 to 65535`},
		{args: []string{"--consistency", "local_quorum"}, want: "LOCAL_QUORUM"},
		{args: []string{"--username", "lockd"}, want: "--username lockd has no password: set LOCKSTEP_PASSWORD"},
		{env: map[string]string{"LOCKSTEP_PASSWORD": "pw"}, want: "a password is set (LOCKSTEP_PASSWORD or --password-file) but no user"},
		{args: []string{"--password", "s3cret"}, want: "--password is not accepted"},
		{args: []string{"--tls-ca", "/nonexistent/ca.pem", "--hosts", "127.0.0.1:1"}, want: "--tls-ca: open /nonexistent/ca.pem"},
		{args: []string{"--hosts", "127.0.0.1:1", "--timeout", "1s"}, want: "connecting to Cassandra at 127.0.0.1:1: "},
		{args: []string{"--require-client-cert"}, want: "need TLS"},
		{args: []string{"--server-cert", "x.pem"}, want: "go together"},
		{args: []string{"--session-ttl", "0s"}, want: "must be positive"},
		{args: []string{"--drain", "0s"}, want: "and --drain must be positive"},
		{args: []string{"--drain", "10s"}, want: "--drain 10s must be less than --shutdown-timeout 10s"},
		{env: map[string]string{"LOCKSTEP_LOCKD_DRAIN": "soon"}, want: "LOCKSTEP_LOCKD_DRAIN"},
		{args: []string{"--lock-ttl", "-1s"}, want: "--lock-ttl -1s: want a positive number of whole seconds"},
		{args: []string{"--lock-ttl", "2s"}, want: "use a TTL of at least 4s"},
		{env: map[string]string{"LOCKSTEP_LOCKD_LOCK_TTL": "soon"}, want: "LOCKSTEP_LOCKD_LOCK_TTL"},
		{env: map[string]string{"LOCKSTEP_LOCKD_MAX_WAIT": "soon"}, want: "LOCKSTEP_LOCKD_MAX_WAIT"},
		{args: []string{"--principals", "/nonexistent.json"}, want: "principals file"},
		{args: []string{"extra"}, want: "unexpected argument"},
		{args: []string{"--peer-key-file", "/nonexistent.key"}, want: "--peer-key-file: open /nonexistent.key"},
		{args: []string{"--peer-key-file", shortKey}, want: "PeerKey"},
	} {
		getenv := func(k string) string { return tc.env[k] }
		var out bytes.Buffer
		err := run(context.Background(), tc.args, &out, &out, getenv, nil)
		require.ErrorContains(t, err, tc.want, "%v %v", tc.args, tc.env)
	}
}

// The connection settings are lockctl's: the same flags and variables, the
// flag winning; any of them makes lockd serve that cluster.
func TestParseOptions_ConnectionSettingsAreLockctls(t *testing.T) {
	o, err := parseOptions(nil, noEnv, io.Discard)
	require.NoError(t, err)
	require.False(t, o.cluster, "no setting: the embedded model")

	env := map[string]string{"CASSANDRA_HOSTS": "10.0.0.9", "LOCKSTEP_KEYSPACE": "ks", "LOCKSTEP_CONSISTENCY": "all",
		"LOCKSTEP_USERNAME": "lockd", "LOCKSTEP_PASSWORD": "pw", "LOCKSTEP_TLS": "true"}
	o, err = parseOptions([]string{"--hosts", "10.0.0.1,10.0.0.2:9142", "--port", "19042", "--tls-server-name", "db"},
		func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.True(t, o.cluster)
	require.Equal(t, []string{"10.0.0.1", "10.0.0.2:9142"}, o.conn.Hosts, "the flag wins over CASSANDRA_HOSTS")
	require.Equal(t, 19042, o.conn.Port)
	require.Equal(t, "ks", o.conn.Keyspace)
	require.Equal(t, gocql.All, o.conn.Consistency)
	require.Equal(t, "pw", o.conn.Password)
	require.True(t, o.conn.TLS)
	require.Equal(t, "db", o.conn.TLSServerName)

	o, err = parseOptions([]string{"--tls=false", "--tls-insecure-skip-verify=false"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.False(t, o.conn.TLS, "--tls=false wins over LOCKSTEP_TLS")
	require.Equal(t, []string{"10.0.0.9"}, o.conn.Hosts, "CASSANDRA_HOSTS when neither --hosts nor LOCKSTEP_HOSTS")
}
