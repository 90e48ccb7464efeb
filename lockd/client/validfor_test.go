package client_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/lockstep-go/lockstep/lockd/client"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// scripted is a lockd that answers as a test says: a session of a long TTL,
// one lock, KeepAlive answers naming the lock's valid_for (or not, or no
// answer at all), and a watch stream that stays open and silent — a lockd
// that stops renewing without telling anyone.
type scripted struct {
	lockstepv1connect.UnimplementedLockServiceHandler
	ttl, grantValid, aliveValid time.Duration
	leaveOut                    atomic.Bool // KeepAlive answers no longer name the lock
	hang                        atomic.Bool // KeepAlive answers nothing
	mu                          sync.Mutex
	sends                       []time.Time // when each answered KeepAlive arrived
}

func (f *scripted) OpenSession(context.Context, *connect.Request[pb.OpenSessionRequest]) (*connect.Response[pb.OpenSessionResponse], error) {
	return connect.NewResponse(&pb.OpenSessionResponse{SessionId: "s-1", Ttl: durationpb.New(f.ttl)}), nil
}

func (f *scripted) Lock(context.Context, *connect.Request[pb.LockRequest]) (*connect.Response[pb.LockResponse], error) {
	return connect.NewResponse(&pb.LockResponse{Lock: &pb.HeldLock{LockId: "l-1", Items: []*pb.LockItem{{Id: "x"}},
		ValidFor: durationpb.New(f.grantValid)}}), nil
}

func (f *scripted) KeepAlive(ctx context.Context, _ *connect.Request[pb.KeepAliveRequest]) (*connect.Response[pb.KeepAliveResponse], error) {
	if f.hang.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	res := &pb.KeepAliveResponse{Ttl: durationpb.New(f.ttl), ValidFor: map[string]*durationpb.Duration{}}
	if !f.leaveOut.Load() {
		res.ValidFor["l-1"] = durationpb.New(f.aliveValid)
	}
	f.mu.Lock()
	f.sends = append(f.sends, time.Now())
	f.mu.Unlock()
	return connect.NewResponse(res), nil
}

func (f *scripted) WatchSession(ctx context.Context, _ *connect.Request[pb.WatchSessionRequest], st *connect.ServerStream[pb.SessionEvent]) error {
	if err := st.Send(&pb.SessionEvent{Kind: pb.SessionEvent_KIND_WATCHING}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

func (f *scripted) CloseSession(context.Context, *connect.Request[pb.CloseSessionRequest]) (*connect.Response[pb.CloseSessionResponse], error) {
	return connect.NewResponse(&pb.CloseSessionResponse{}), nil
}

func serveScripted(t *testing.T, f *scripted) string {
	t.Helper()
	path, h := lockstepv1connect.NewLockServiceHandler(f)
	mux := http.NewServeMux()
	mux.Handle(path, h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: mux}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

// A lock's own time: KeepAlive answers that name the lock with a
// valid_for far below the session's TTL keep it (the client sends them
// often enough), and once they stop naming it the lock is lost within
// that valid_for while the session itself lives on.
func TestSession_ALockIsLostWhenLockdStopsGivingItTime(t *testing.T) {
	f := &scripted{ttl: 30 * time.Second, grantValid: 2 * time.Second, aliveValid: 1500 * time.Millisecond}
	s := open(t, serveScripted(t, f), nil)
	l, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	time.Sleep(4 * time.Second) // longer than any single valid_for
	select {
	case <-l.Lost():
		t.Fatal("lost although every KeepAlive answer gave it 1.5s more")
	default:
	}
	f.leaveOut.Store(true)
	// The last answer naming the lock was sent before now, so its deadline
	// is less than one valid_for away: a look at Lost() then sees the loss,
	// however late the background loop runs on a loaded machine.
	time.Sleep(1500 * time.Millisecond)
	select {
	case <-l.Lost():
	default:
		t.Fatal("not lost one valid_for (1.5s) after the answers stopped naming it")
	}
	require.NoError(t, s.Err(), "the session itself lives on")
}

// A lockd that stops answering: the lock is lost at the send of the last
// answered KeepAlive plus the valid_for that answer gave, long before the
// session's TTL would have ended it. Lost() applies the deadline itself, so
// a look just past it sees the loss whatever the background loop is doing.
func TestSession_ALockIsLostByItsOwnDeadlineWhenLockdHangs(t *testing.T) {
	const valid = 500 * time.Millisecond
	f := &scripted{ttl: 30 * time.Second, grantValid: time.Second, aliveValid: valid}
	s := open(t, serveScripted(t, f), nil)
	l, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	time.Sleep(700 * time.Millisecond)
	f.hang.Store(true)
	time.Sleep(50 * time.Millisecond) // an answer in flight as hang was set is recorded by now
	f.mu.Lock()
	require.NotEmpty(t, f.sends)
	last := f.sends[len(f.sends)-1]
	f.mu.Unlock()
	time.Sleep(time.Until(last.Add(valid + 5*time.Millisecond)))
	select {
	case <-l.Lost():
	default:
		t.Fatalf("not lost %v after the last answered KeepAlive reached lockd, with valid_for %v (it was sent before)", time.Since(last), valid)
	}
	t.Logf("lost by %v after the last answered KeepAlive reached lockd (valid_for %v, TTL 30s)", valid+5*time.Millisecond, valid)
	require.NoError(t, s.Err(), "the session's own TTL has not run out")
}

// ValidUntil is the lock's deadline: the grant's valid_for from the Lock
// call's send, moved on by each KeepAlive answer; when lockd hangs, Lost
// closes at it, and it stays there after the loss.
func TestLock_ValidUntilIsTheDeadlineLostClosesAt(t *testing.T) {
	f := &scripted{ttl: 30 * time.Second, grantValid: 600 * time.Millisecond, aliveValid: 600 * time.Millisecond}
	s := open(t, serveScripted(t, f), nil)
	sent := time.Now()
	l, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	v := l.(*client.Lock).ValidUntil()
	require.False(t, v.Before(sent.Add(600*time.Millisecond)), "ValidUntil %v before the send + valid_for", v.Sub(sent))
	require.False(t, v.After(time.Now().Add(600*time.Millisecond)))
	time.Sleep(700 * time.Millisecond) // KeepAlives renew it
	require.True(t, l.(*client.Lock).ValidUntil().After(v), "not moved on by KeepAlive answers")
	f.hang.Store(true)
	<-l.Lost()
	lost := time.Now()
	v = l.(*client.Lock).ValidUntil()
	require.False(t, lost.Before(v), "lost at %v, before its deadline %v", lost, v)
	require.Less(t, lost.Sub(v), 200*time.Millisecond, "lost well after its deadline")
}
