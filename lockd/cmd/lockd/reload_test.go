package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// lockd --help prints the flags and exits 0.
func TestBinary_HelpExitsZero(t *testing.T) {
	cmd := exec.Command(lockdBinary(t), "--help")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), "lockd --help exits 0:\n%s", out.String())
	for _, flag := range []string{"--max-body-bytes", "--max-session-name", "--max-comment", "--max-ids-per-request",
		"--max-sessions-per-principal", "--max-waits-per-session", "--read-timeout", "--write-timeout", "--idle-timeout", "--max-header-bytes"} {
		require.Contains(t, out.String(), flag)
	}
}

// SIGHUP reloads the principals file: a session opened before it keeps its
// lock and is usable with the principal's remaining token, a revoked token
// is refused, a new one accepted. A broken file keeps the credentials in
// use and says why.
func TestBinary_SIGHUPReloadsCredentialsKeepingSessions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "principals.json")
	principalsFile(t, file, "tok-old", "tok-kept")
	p := startBinary(t, "--principals", file, "--log-level", "info")
	ctx := t.Context()
	client := func(token string) lockstepv1connect.LockServiceClient {
		return lockstepv1connect.NewLockServiceClient(http.DefaultClient, p.url, connect.WithInterceptors(bearer(token)))
	}
	s, err := client("tok-old").OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{Name: "before"}))
	require.NoError(t, err)
	sid := s.Msg.SessionId
	held, err := client("tok-old").Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "billing/1"}}}))
	require.NoError(t, err)
	_, err = client("tok-new").OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	require.Equal(t, connect.CodeUnauthenticated, connect.CodeOf(err), "not yet in the file: %v", err)

	principalsFile(t, file, "tok-kept", "tok-new")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
	p.waitLog(t, "lockd: credentials reloaded")

	_, err = client("tok-old").KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: sid}))
	require.Equal(t, connect.CodeUnauthenticated, connect.CodeOf(err), "the revoked token is refused: %v", err)
	d, err := client("tok-kept").DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: sid}))
	require.NoError(t, err, "the session opened before the reload lives on, still billing's")
	require.Len(t, d.Msg.Locks, 1)
	require.Equal(t, held.Msg.Lock.LockId, d.Msg.Locks[0].LockId, "with its lock")
	_, err = client("tok-new").OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	require.NoError(t, err, "the new token is accepted")

	require.NoError(t, os.WriteFile(file, []byte(`{"principals": [`), 0o600))
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
	p.waitLog(t, "lockd: reload failed; the credentials in use are kept")
	require.Contains(t, p.stderr.String(), "principals file "+file)
	_, err = client("tok-new").KeepAlive(context.Background(), connect.NewRequest(&pb.KeepAliveRequest{SessionId: sid}))
	require.NoError(t, err, "the credentials in use are kept")
	_, err = client("tok-old").OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	require.Equal(t, connect.CodeUnauthenticated, connect.CodeOf(err), "and so is the revocation: %v", err)
	_, err = client("tok-kept").Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sid, LockId: held.Msg.Lock.LockId}))
	require.NoError(t, err)
}
