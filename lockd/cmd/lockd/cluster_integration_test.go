//go:build integration

package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
	"github.com/lockstep-go/lockstep/locktest/clusterlock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/schema"
)

// lockd against the cluster in CASSANDRA_HOSTS, e.g.
//
//	CASSANDRA_HOSTS=127.0.0.1 go test -tags integration ./cmd/lockd/
//
// With the integration tag and no CASSANDRA_HOSTS the test fails rather
// than skips.

const itKeyspace = "lockstep_it_lockd"

// clusterFleet is a lockd started by run on a real cluster and a Go process
// of the same fleet: a migration.Locker in-process on a session of its own.
type clusterFleet struct {
	url    string
	client lockstepv1connect.LockServiceClient
	goProc *migration.Locker
	store  lockstep.Store // goProc's
}

// startClusterFleet creates the keyspace and schema afresh (lockctl's job
// in production: lockd creates nothing), moves the phase to new, starts
// lockd with --hosts/--keyspace and joins a Go process.
func startClusterFleet(t *testing.T) *clusterFleet {
	t.Helper()
	raw := os.Getenv("CASSANDRA_HOSTS")
	if strings.TrimSpace(raw) == "" {
		t.Fatal("CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra " +
			"(scripts/cassandra up, then CASSANDRA_HOSTS=127.0.0.1)")
	}
	t.Cleanup(clusterlock.Take(t, false))
	conn := cassandra.DefaultConnectOptions()
	require.NoError(t, conn.Set("hosts", raw))
	conn.Keyspace, conn.Timeout = itKeyspace, 20*time.Second
	require.NoError(t, conn.Validate())
	cluster, err := conn.ClusterConfig()
	require.NoError(t, err)
	session, err := cluster.CreateSession()
	require.NoError(t, err)
	t.Cleanup(session.Close)
	ctx := t.Context()
	require.NoError(t, session.Query("DROP KEYSPACE IF EXISTS "+itKeyspace).WithContext(ctx).Exec())
	repl := map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}
	if len(conn.Hosts) >= 3 {
		repl["replication_factor"] = "3"
	}
	require.NoError(t, schema.Apply(ctx, session, itKeyspace, schema.WithCreateKeyspace(repl)))
	store, err := conn.NewStore(session)
	require.NoError(t, err)
	ctl, err := migration.NewController(store, nil)
	require.NoError(t, err)
	require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
	require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))

	// lockd, as its command line starts it.
	lctx, stop := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	args := []string{"--hosts", raw, "--keyspace", itKeyspace, "--timeout", "20s", "--process-id", "lockd-it", "--log-level", "warn"}
	go func() { done <- run(lctx, args, &stdout, &stderr, noEnv, ready) }()
	f := &clusterFleet{}
	select {
	case f.url = <-ready:
	case err := <-done:
		t.Fatalf("lockd stopped: %v\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("lockd did not start within 60 s")
	}
	t.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			require.NoError(t, err, "lockd's shutdown")
		case <-time.After(60 * time.Second):
			t.Error("lockd did not shut down within 60 s")
		}
	})
	first, _, _ := strings.Cut(stdout.String(), "\n")
	require.Equal(t, "lockd: serving lockstep.v1 on "+f.url+" (store: "+conn.Describe()+", keyspace "+itKeyspace+
		"; open mode: every caller may take every id (loopback only))", first, "the first line names the cluster and keyspace")
	f.client = lockstepv1connect.NewLockServiceClient(http.DefaultClient, f.url)

	// The Go process: the library in-process, on a session of its own.
	session2, err := cluster.CreateSession()
	require.NoError(t, err)
	t.Cleanup(session2.Close)
	store2, err := conn.NewStore(session2)
	require.NoError(t, err)
	f.store = store2
	f.goProc, err = join(store2, &options{processID: "go-it", separator: "/", fencing: true, deadlock: true}, slog.New(slog.DiscardHandler), nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, f.goProc.Close(context.Background())) })
	return f
}

func (f *clusterFleet) open(t *testing.T, ttl time.Duration) string {
	t.Helper()
	req := &pb.OpenSessionRequest{Name: t.Name()}
	if ttl > 0 {
		req.Ttl = durationpb.New(ttl)
	}
	s, err := f.client.OpenSession(t.Context(), connect.NewRequest(req))
	require.NoError(t, err)
	return s.Msg.SessionId
}

func lockErrorOf(t *testing.T, err error) (connect.Code, *pb.LockError) {
	t.Helper()
	var ce *connect.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	for _, d := range ce.Details() {
		if v, derr := d.Value(); derr == nil {
			if le, ok := v.(*pb.LockError); ok {
				return ce.Code(), le
			}
		}
	}
	t.Fatalf("no LockError detail in %v", err)
	return 0, nil
}

func TestLockd_OnACluster(t *testing.T) {
	f := startClusterFleet(t)
	t.Run("ExclusionAcrossServiceAndLibrary", func(t *testing.T) { exclusionAcross(t, f) })
	t.Run("ContendedHoldsNeverOverlap", func(t *testing.T) { contended(t, f) })
	t.Run("SessionLapseLosesItsLocks", func(t *testing.T) { lapse(t, f) })
	t.Run("DeadlockAcrossServiceAndLibrary", func(t *testing.T) { deadlockAcross(t, f) })
	t.Run("TokenHandoverKeepsTheGoProcessOut", func(t *testing.T) { handover(t, f) })
}

// Seed 003's setToken on a real node: a session takes another's identity
// and its lock, the giver closes, and the Go process still meets a holder
// until the taker unlocks; then it gets the id with a later fencing token.
func handover(t *testing.T, f *clusterFleet) {
	ctx := t.Context()
	giver, taker := f.open(t, 0), f.open(t, 0)
	held, err := f.client.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: giver, Items: []*pb.LockItem{{Id: "handover-1"}}}))
	require.NoError(t, err)
	tok, err := f.client.GetToken(ctx, connect.NewRequest(&pb.GetTokenRequest{SessionId: giver}))
	require.NoError(t, err)
	res, err := f.client.SetToken(ctx, connect.NewRequest(&pb.SetTokenRequest{SessionId: taker, Token: tok.Msg.Token}))
	require.NoError(t, err)
	require.Len(t, res.Msg.Locks, 1)
	require.Equal(t, held.Msg.Lock.Token, res.Msg.Locks[0].Token)
	_, err = f.client.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: giver}))
	require.NoError(t, err)
	_, err = f.goProc.TryLock(ctx, "handover-1")
	require.ErrorIs(t, err, lockstep.ErrLocked, "the giver's close released nothing: the taker holds it")
	_, err = f.client.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: taker, LockId: res.Msg.Locks[0].LockId}))
	require.NoError(t, err)
	l, err := f.goProc.Lock(ctx, "handover-1")
	require.NoError(t, err)
	require.Greater(t, l.(lockstep.Fenced).Token(), held.Msg.Lock.Token)
	require.NoError(t, l.Unlock(ctx))
	_, err = f.client.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: taker}))
	require.NoError(t, err)
}

// The Go process holds y and waits for x; a lockd session holds x and then
// waits for y: the cycle runs through both kinds of process, and the later
// wait, the session's, is the victim, with the cycle naming both processes
// and comments. After the session's UnlockAll the Go process gets x.
func deadlockAcross(t *testing.T, f *clusterFleet) {
	ctx := t.Context()
	unit := f.goProc.Unit("go-unit")
	y, err := unit.Lock(ctx, "dl-y")
	require.NoError(t, err)
	sid := f.open(t, 0)
	_, err = f.client.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "dl-x"}}}))
	require.NoError(t, err)
	goDone := make(chan error, 1)
	go func() {
		x, err := unit.Commented("go job").Lock(ctx, "dl-x")
		if err == nil {
			err = x.Unlock(ctx)
		}
		goDone <- err
	}()
	time.Sleep(500 * time.Millisecond) // the Go wait begins first: the session's is the victim
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	_, err = f.client.Lock(wctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "dl-y"}}, Comment: "lockd job"}))
	code, le := lockErrorOf(t, err)
	require.Equal(t, connect.CodeAborted, code)
	require.Equal(t, pb.LockError_REASON_DEADLOCK, le.Reason)
	require.Len(t, le.Cycle, 2)
	require.Equal(t, "lockd-it", le.Cycle[0].Process)
	require.Equal(t, "dl-y", le.Cycle[0].Waits.Id)
	require.Equal(t, "lockd job", le.Cycle[0].Comment)
	require.Equal(t, "go-it", le.Cycle[1].Process)
	require.Equal(t, "dl-x", le.Cycle[1].Waits.Id)
	require.Equal(t, "go job", le.Cycle[1].Comment)

	res, err := f.client.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: sid}))
	require.NoError(t, err)
	require.Len(t, res.Msg.LockIds, 1)
	select {
	case err := <-goDone:
		require.NoError(t, err, "the Go process is granted x after the session let go")
	case <-time.After(60 * time.Second):
		t.Fatal("the Go process was not granted x within 60 s of the UnlockAll")
	}
	require.NoError(t, y.Unlock(ctx))
}

// A lock held through lockd excludes the Go process and the other way
// round; each side's blocking Lock is granted when the other unlocks.
func exclusionAcross(t *testing.T, f *clusterFleet) {
	ctx := t.Context()
	sid := f.open(t, 0)
	held, err := f.client.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "invoice-1"}}}))
	require.NoError(t, err)
	require.NotZero(t, held.Msg.Lock.Token, "fencing tokens on the cluster too")
	_, err = f.goProc.TryLock(ctx, "invoice-1")
	require.ErrorIs(t, err, lockstep.ErrLocked, "the Go process meets lockd's client")

	got := make(chan lockstep.Lock, 1)
	go func() {
		l, err := f.goProc.Lock(ctx, "invoice-1")
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("the Go process was granted a lock lockd's client holds")
	case <-time.After(500 * time.Millisecond):
	}
	_, err = f.client.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sid, LockId: held.Msg.Lock.LockId}))
	require.NoError(t, err)
	var goLock lockstep.Lock
	select {
	case goLock = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the Go process was not granted the lock within 30 s of the unlock")
	}
	require.NotNil(t, goLock)
	require.Greater(t, goLock.(lockstep.Fenced).Token(), held.Msg.Lock.Token, "tokens increase across the two kinds of owner")

	_, err = f.client.TryLock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "invoice-1"}}}))
	code, le := lockErrorOf(t, err)
	require.Equal(t, connect.CodeFailedPrecondition, code)
	require.Equal(t, pb.LockError_REASON_LOCKED, le.Reason, "lockd's client meets the Go process")
	type result struct {
		res *connect.Response[pb.LockResponse]
		err error
	}
	waited := make(chan result, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		r, err := f.client.Lock(wctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "invoice-1"}}}))
		waited <- result{r, err}
	}()
	select {
	case r := <-waited:
		t.Fatalf("lockd's client was granted a lock the Go process holds (%v)", r.err)
	case <-time.After(500 * time.Millisecond):
	}
	require.NoError(t, goLock.Unlock(ctx))
	r := <-waited
	require.NoError(t, r.err)
	_, err = f.client.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: sid}))
	require.NoError(t, err)
}

// A lockd client and the Go process take one id in turns, each checking
// that nobody else is inside: no overlap.
func contended(t *testing.T, f *clusterFleet) {
	const rounds = 8
	ctx := t.Context()
	var inside, overlaps atomic.Int32
	hold := func() {
		if inside.Add(1) != 1 {
			overlaps.Add(1)
		}
		time.Sleep(5 * time.Millisecond)
		inside.Add(-1)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range rounds {
			l, err := f.goProc.Lock(ctx, "hot")
			if err != nil {
				t.Error(err)
				return
			}
			hold()
			if err := l.Unlock(ctx); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		sid := f.open(t, 0)
		for range rounds {
			r, err := f.client.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "hot"}}}))
			if err != nil {
				t.Error(err)
				return
			}
			hold()
			if _, err := f.client.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sid, LockId: r.Msg.Lock.LockId})); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	require.Zero(t, overlaps.Load(), "holds overlapped")
}

// A session nobody keeps alive lapses: lockd releases its locks (the Go
// process gets them), the watcher is told EXPIRED with the lost handle, and
// the session's next call is Aborted, SESSION_EXPIRED.
func lapse(t *testing.T, f *clusterFleet) {
	ctx := t.Context()
	sid := f.open(t, 2*time.Second)
	held, err := f.client.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "lapse-1"}}}))
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	stream, err := f.client.WatchSession(wctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: sid}))
	require.NoError(t, err)
	defer stream.Close()

	start := time.Now()
	l, err := f.goProc.Lock(wctx, "lapse-1")
	require.NoError(t, err, "the Go process gets the lapsed session's lock")
	require.GreaterOrEqual(t, time.Since(start), time.Second, "not before the session lapsed")
	require.NoError(t, l.Unlock(ctx))

	var last *pb.SessionEvent
	for stream.Receive() {
		last = stream.Msg()
	}
	require.NotNil(t, last)
	require.Equal(t, pb.SessionEvent_KIND_EXPIRED, last.Kind)
	require.Equal(t, []string{held.Msg.Lock.LockId}, last.LockIds)

	_, err = f.client.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: sid}))
	code, le := lockErrorOf(t, err)
	require.Equal(t, connect.CodeAborted, code)
	require.Equal(t, pb.LockError_REASON_SESSION_EXPIRED, le.Reason)
	require.Equal(t, []string{held.Msg.Lock.LockId}, le.LostLockIds)
}
