//go:build integration

package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
	"github.com/lockstep-go/lockstep/migration"
)

// lockd under faults on a real cluster: a lockd process killed while its
// client holds a lock, one paused past its lease, and a client cut off from
// its lockd. In each, the fleet's Go process (startClusterFleet) is the
// other contender: it must not get the lock while the lockd side may still
// hold it, must get it once that side's lease or session has lapsed, and
// its fencing token must be larger; the lockd side's client must learn that
// its lock is gone.
//
// The lockd processes are the real command, built once by the test and run
// with --lock-ttl 4s, so their cells expire in seconds rather than the
// default 30s; the Go process beside them takes its locks at the same TTL
// (one TTL per table: docs/algorithms.md, A7).
func TestLockd_UnderFaults(t *testing.T) {
	f := startClusterFleet(t)
	bin := buildLockd(t)
	t.Run("KilledWhileHolding", func(t *testing.T) { killedWhileHolding(t, f, bin) })
	t.Run("PausedPastItsLease", func(t *testing.T) { pausedPastItsLease(t, f, bin) })
	t.Run("ClientCutOffFromLockd", func(t *testing.T) { clientCutOff(t, f) })
}

const faultLockTTL = "4s"

// goAtFaultTTL joins a Go process of its own at the fault lockds' lock TTL.
func goAtFaultTTL(t *testing.T, f *clusterFleet, processID string) *migration.Locker {
	t.Helper()
	ttl, err := time.ParseDuration(faultLockTTL)
	require.NoError(t, err)
	l, err := join(f.store, &options{processID: processID, separator: "/", fencing: true, lockTTL: ttl}, slog.New(slog.DiscardHandler), nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close(context.Background())) })
	return l
}

// killedWhileHolding: kill -9 a lockd whose client holds x. The Go process,
// refused while lockd lived, is granted x within a few TTLs of the kill,
// with a larger token.
func killedWhileHolding(t *testing.T, f *clusterFleet, bin string) {
	ctx := t.Context()
	p := startLockdProcess(t, bin, "lockd-killed")
	goProc := goAtFaultTTL(t, f, "go-kill")
	sid := openOn(t, p.client, 0)
	held, err := p.client.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "fault-kill"}}}))
	require.NoError(t, err)
	_, err = goProc.TryLock(ctx, "fault-kill")
	require.ErrorIs(t, err, lockstep.ErrLocked, "the killed-to-be lockd's client holds it")

	granted := lockInBackground(t, goProc, "fault-kill")
	requireNotYet(t, granted, time.Second, "the Go process was granted x while the lockd holding it ran")
	killed := time.Now()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	_ = p.cmd.Wait()
	g := awaitGrant(t, granted, 60*time.Second)
	t.Logf("granted %.1fs after the kill (lock TTL %s)", g.at.Sub(killed).Seconds(), faultLockTTL)
	require.Less(t, g.at.Sub(killed), 15*time.Second, "within a few lock TTLs of the kill (4s), not the library's default 30s")
	require.Greater(t, g.lock.(lockstep.Fenced).Token(), held.Msg.Lock.Token, "the new holder's token is larger")
	require.NoError(t, g.lock.Unlock(ctx))
}

// pausedPastItsLease: SIGSTOP a lockd whose client holds x, for longer than
// its lease. The Go process is granted x meanwhile, not before the paused
// lockd's lease window has passed; after SIGCONT the lockd does not hold it
// (another session's TryLock there meets the Go process), and the client
// learns the lock is lost (Unlock: Aborted, LOST).
func pausedPastItsLease(t *testing.T, f *clusterFleet, bin string) {
	ctx := t.Context()
	p := startLockdProcess(t, bin, "lockd-paused", "--session-ttl", "60s")
	goProc := goAtFaultTTL(t, f, "go-pause")
	sid := openOn(t, p.client, 0)
	held, err := p.client.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "fault-pause"}}}))
	require.NoError(t, err)

	granted := lockInBackground(t, goProc, "fault-pause")
	requireNotYet(t, granted, time.Second, "the Go process was granted x while the lockd holding it ran")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGSTOP))
	stopped := time.Now()
	g := awaitGrant(t, granted, 60*time.Second)
	t.Logf("granted %.1fs after the pause began (lock TTL %s)", g.at.Sub(stopped).Seconds(), faultLockTTL)
	// The paused lockd's lease window is (4s − 1s − 1s)/2 = 1s from its last
	// renewal's send; its cells outlive that by the TTL's margin.
	require.GreaterOrEqual(t, g.at.Sub(stopped), time.Second, "not within the paused holder's lease window")
	require.Greater(t, g.lock.(lockstep.Fenced).Token(), held.Msg.Lock.Token)
	time.Sleep(2 * time.Second) // paused well past its lease while the Go process holds
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGCONT))

	other := openOn(t, p.client, 0)
	_, err = p.client.TryLock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: other, Items: []*pb.LockItem{{Id: "fault-pause"}}}))
	code, le := lockErrorOf(t, err)
	require.Equal(t, connect.CodeFailedPrecondition, code, "the resumed lockd does not hold it: the Go process does")
	require.Equal(t, pb.LockError_REASON_LOCKED, le.Reason)
	_, err = p.client.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sid, LockId: held.Msg.Lock.LockId}))
	code, le = lockErrorOf(t, err)
	require.Equal(t, connect.CodeAborted, code, "the client learns its lock was lost while lockd was paused")
	require.Equal(t, pb.LockError_REASON_LOST, le.Reason)
	require.NoError(t, g.lock.Unlock(ctx))
}

// clientCutOff: a client whose session keeps itself alive through a proxy
// is cut off from lockd. The session lapses (2s TTL) and lockd releases its
// lock: the Go process is granted it, not before the session's TTL has
// mostly run. When the link heals, the client's next call is Aborted,
// SESSION_EXPIRED, naming the lock it lost.
func clientCutOff(t *testing.T, f *clusterFleet) {
	ctx := t.Context()
	px := newCutProxy(t, strings.TrimPrefix(f.url, "http://"))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := lockstepv1connect.NewLockServiceClient(&http.Client{Transport: tr, Timeout: 5 * time.Second}, "http://"+px.addr)
	sid := openOn(t, c, 2*time.Second)
	held, err := c.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: sid, Items: []*pb.LockItem{{Id: "fault-cut"}}}))
	require.NoError(t, err)
	kctx, stopKeeping := context.WithCancel(ctx)
	defer stopKeeping()
	go func() { // the client's keep-alive, as a client library runs it
		for kctx.Err() == nil {
			_, _ = c.KeepAlive(kctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: sid}))
			select {
			case <-kctx.Done():
			case <-time.After(400 * time.Millisecond):
			}
		}
	}()

	granted := lockInBackground(t, f.goProc, "fault-cut")
	requireNotYet(t, granted, 2*time.Second, "the Go process was granted x while the client kept its session alive")
	px.cut()
	cut := time.Now()
	g := awaitGrant(t, granted, 60*time.Second)
	t.Logf("granted %.1fs after the cut (session TTL 2s)", g.at.Sub(cut).Seconds())
	require.GreaterOrEqual(t, g.at.Sub(cut), time.Second, "not before the session's TTL had mostly run")
	require.Greater(t, g.lock.(lockstep.Fenced).Token(), held.Msg.Lock.Token)
	stopKeeping()

	px.heal()
	tr.CloseIdleConnections()
	_, err = c.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: sid}))
	code, le := lockErrorOf(t, err)
	require.Equal(t, connect.CodeAborted, code)
	require.Equal(t, pb.LockError_REASON_SESSION_EXPIRED, le.Reason)
	require.Equal(t, []string{held.Msg.Lock.LockId}, le.LostLockIds)
	require.NoError(t, g.lock.Unlock(ctx))
}

// --- helpers ---

type grant struct {
	lock lockstep.Lock
	at   time.Time
}

// lockInBackground starts the Go process's blocking Lock of id.
func lockInBackground(t *testing.T, goProc *migration.Locker, id string) <-chan grant {
	ch := make(chan grant, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		l, err := goProc.Lock(ctx, id)
		if err != nil {
			t.Errorf("the Go process's Lock(%q): %v", id, err)
			close(ch)
			return
		}
		ch <- grant{lock: l, at: time.Now()}
	}()
	return ch
}

func requireNotYet(t *testing.T, ch <-chan grant, d time.Duration, msg string) {
	t.Helper()
	select {
	case g, ok := <-ch:
		if ok {
			_ = g.lock.Unlock(context.Background())
		}
		t.Fatal(msg)
	case <-time.After(d):
	}
}

func awaitGrant(t *testing.T, ch <-chan grant, d time.Duration) grant {
	t.Helper()
	select {
	case g, ok := <-ch:
		require.True(t, ok, "the Go process's Lock failed")
		return g
	case <-time.After(d):
		t.Fatalf("the Go process was not granted the lock within %v", d)
	}
	return grant{}
}

func openOn(t *testing.T, c lockstepv1connect.LockServiceClient, ttl time.Duration) string {
	t.Helper()
	req := &pb.OpenSessionRequest{Name: t.Name()}
	if ttl > 0 {
		req.Ttl = durationpb.New(ttl)
	}
	s, err := c.OpenSession(t.Context(), connect.NewRequest(req))
	require.NoError(t, err)
	return s.Msg.SessionId
}

// buildLockd builds this command into a temporary directory.
func buildLockd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lockd")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// lockdProcess is lockd running as a process of its own on the fleet's
// cluster and keyspace.
type lockdProcess struct {
	cmd    *exec.Cmd
	client lockstepv1connect.LockServiceClient
}

func startLockdProcess(t *testing.T, bin, processID string, extra ...string) *lockdProcess {
	t.Helper()
	args := append([]string{"--hosts", os.Getenv("CASSANDRA_HOSTS"), "--keyspace", itKeyspace, "--timeout", "20s",
		"--process-id", processID, "--lock-ttl", faultLockTTL, "--log-level", "warn"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, r)
	}()
	var first string
	select {
	case first = <-lines:
	case <-time.After(90 * time.Second):
		t.Fatal("lockd did not print its address within 90 s")
	}
	_, rest, ok := strings.Cut(first, "lockd: serving lockstep.v1 on ")
	url, _, ok2 := strings.Cut(rest, " ")
	require.True(t, ok && ok2, "first line %q", first)
	return &lockdProcess{cmd: cmd, client: lockstepv1connect.NewLockServiceClient(http.DefaultClient, url)}
}

// cutProxy forwards TCP connections to a target until cut: then it closes
// every connection and refuses new ones, until heal.
type cutProxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{t: t, addr: ln.Addr().String(), target: target, conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *cutProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				_ = in.Close()
				continue
			}
			if !p.track(in, out) {
				return
			}
			go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
			go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
		}
	}()
}

func (p *cutProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

func (p *cutProxy) heal() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		time.Sleep(100 * time.Millisecond)
		ln, err = net.Listen("tcp", p.addr)
	}
	require.NoError(p.t, err)
	p.serve(ln)
}
