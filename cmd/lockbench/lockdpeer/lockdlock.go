package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/lockstep-go/lockstep/cmd/lockbench/peer"
	"net/http"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	lockstepv1 "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// sessionTTL is the TTL of the worker's lockd session: long enough to span
// the wait for every other worker to start, since nothing keeps it alive
// but the worker's own calls.
const sessionTTL = time.Minute

// lockdLocker is lockd as a contender: one lockd session per process,
// opened over the Connect protocol (binary protobuf over HTTP/1.1 on
// loopback, the generated Go client's default), and a Lock and an Unlock
// RPC per acquisition. Each RPC is one request into the tally of its ctx
// (or background): lockd's own store requests are its, not the client's.
//
// Safe for concurrent use.
type lockdLocker struct {
	client     lockstepv1connect.LockServiceClient
	session    string
	background atomic.Int64
}

func newLockdLocker(url, process string) (*lockdLocker, error) {
	l := &lockdLocker{client: lockstepv1connect.NewLockServiceClient(http.DefaultClient, url)}
	ctx, cancel := context.WithTimeout(context.Background(), peer.Startup)
	defer cancel()
	l.background.Add(1)
	s, err := l.client.OpenSession(ctx, connect.NewRequest(&lockstepv1.OpenSessionRequest{Ttl: durationpb.New(sessionTTL), Name: process}))
	if err != nil {
		return nil, fmt.Errorf("lockd session for process %s at %s: %w", process, url, err)
	}
	l.session = s.Msg.GetSessionId()
	return l, nil
}

func count(ctx context.Context, l *lockdLocker) {
	if t := peer.TallyOf(ctx); t != nil {
		t.Add(1)
	} else {
		l.background.Add(1)
	}
}

// Lock takes id exclusively in the session, waiting until lockd grants it
// or ctx ends. An error after ctx ended wraps ctx's error, so that the loop
// sees the run's end (connect's error names only its code).
func (l *lockdLocker) Lock(ctx context.Context, id string) (peer.Unlocker, error) {
	count(ctx, l)
	res, err := l.client.Lock(ctx, connect.NewRequest(&lockstepv1.LockRequest{SessionId: l.session, Items: []*lockstepv1.LockItem{{Id: id}}}))
	if err != nil {
		// Connect sends the deadline to lockd, whose answer may come back
		// before ctx's own timer fires: wait for it, briefly.
		if dl, ok := ctx.Deadline(); ok && connect.CodeOf(err) == connect.CodeDeadlineExceeded && time.Until(dl) < time.Second {
			<-ctx.Done()
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("lockd lock %q: %w", id, errors.Join(cerr, err))
		}
		return nil, fmt.Errorf("lockd lock %q: %w", id, err)
	}
	return lockdHeld{l: l, id: res.Msg.GetLock().GetLockId()}, nil
}

// Plain is one KeepAlive of the session: a round trip to lockd that takes
// no lock and touches no store.
func (l *lockdLocker) Plain(ctx context.Context) error {
	_, err := l.client.KeepAlive(ctx, connect.NewRequest(&lockstepv1.KeepAliveRequest{SessionId: l.session}))
	return err
}

// Close ends the session, which releases whatever it still holds.
func (l *lockdLocker) Close(ctx context.Context) error {
	_, err := l.client.CloseSession(ctx, connect.NewRequest(&lockstepv1.CloseSessionRequest{SessionId: l.session}))
	return err
}

func (l *lockdLocker) BackgroundRequests() int64 { return l.background.Load() }

// lockdHeld is a lock the session holds, by its handle.
type lockdHeld struct {
	l  *lockdLocker
	id string
}

func (h lockdHeld) Unlock(ctx context.Context) error {
	count(ctx, h.l)
	_, err := h.l.client.Unlock(ctx, connect.NewRequest(&lockstepv1.UnlockRequest{SessionId: h.l.session, LockId: h.id}))
	return err
}
