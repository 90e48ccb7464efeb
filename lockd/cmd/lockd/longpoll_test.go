package main

import (
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// The read and write timeouts bound a request's body and each write, not
// the call: a Lock that waits 3 s, over HTTP/1.1 and over gRPC (h2c), and
// a WatchSession stream silent for 3 s, outlive --read-timeout and
// --write-timeout of 1 s.
func TestBinary_TimeoutsDoNotCutLongPolls(t *testing.T) {
	p := startBinary(t, "--read-timeout", "1s", "--write-timeout", "1s")
	ctx := t.Context()
	h2c := new(http.Protocols)
	h2c.SetUnencryptedHTTP2(true)
	clients := map[string]lockstepv1connect.LockServiceClient{
		"connect/http1": lockstepv1connect.NewLockServiceClient(&http.Client{Transport: &http.Transport{}}, p.url),
		"grpc/h2c":      lockstepv1connect.NewLockServiceClient(&http.Client{Transport: &http.Transport{Protocols: h2c}}, p.url, connect.WithGRPC()),
	}
	for name, c := range clients {
		holder, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
		require.NoError(t, err)
		waiter, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
		require.NoError(t, err)
		held, err := c.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: holder.Msg.SessionId, Items: []*pb.LockItem{{Id: "poll/" + name}}}))
		require.NoError(t, err)
		stream, err := c.WatchSession(ctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: waiter.Msg.SessionId}))
		require.NoError(t, err)
		require.True(t, stream.Receive(), "%s: WATCHING: %v", name, stream.Err())

		granted := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := c.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: waiter.Msg.SessionId, Items: []*pb.LockItem{{Id: "poll/" + name}}}))
			granted <- err
		}()
		time.Sleep(3 * time.Second) // the wait outlives both timeouts
		_, err = c.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: holder.Msg.SessionId}))
		require.NoError(t, err)
		_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: holder.Msg.SessionId, LockId: held.Msg.Lock.LockId}))
		require.NoError(t, err)
		require.NoError(t, <-granted, "%s: the Lock that waited is granted", name)
		require.Greater(t, time.Since(start), 3*time.Second)

		_, err = c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: waiter.Msg.SessionId}))
		require.NoError(t, err)
		var last *pb.SessionEvent
		for stream.Receive() {
			last = stream.Msg()
		}
		require.NoError(t, stream.Err(), "%s: the silent stream was not cut", name)
		require.NotNil(t, last)
		require.Equal(t, pb.SessionEvent_KIND_CLOSED, last.Kind, name)
		require.NoError(t, stream.Close())
	}
}
