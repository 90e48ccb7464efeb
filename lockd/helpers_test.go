package lockd_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// fixture is a lockd on a loopback port: a migration.Locker on the model
// store in phase new, the Server, and its log.
type fixture struct {
	t      *testing.T
	url    string
	server *lockd.Server
	logs   *syncBuffer
	tls    *tls.Config  // the server's, nil for cleartext
	store  *model.Store // the fleet's

	// What restart needs to start the lockd again. mu guards server, hs
	// and stopped once restart may run (from an HTTP handler).
	mu      sync.Mutex
	hs      *http.Server
	stopped chan struct{}
	served  lockstep.GroupLocker
	opts    lockd.Options
	locker  *migration.Locker
	view    bool            // serve the web view beside the lock service
	rec     *lockd.Recorder // the view's Recorder, observing the Locker
	wrapLn  func(net.Listener) net.Listener
	wrapH   func(http.Handler) http.Handler
}

type fixtureOptions struct {
	opts lockd.Options
	tls  *tls.Config
	// wrap, when set, wraps the Locker the Server is given (fault
	// injection).
	wrap func(lockstep.GroupLocker) lockstep.GroupLocker
	// deadlock, when set, turns on the Locker's deadlock detection.
	deadlock *lockstep.DeadlockDetection
	// combined leaves the fleet in phase combined: the Locker takes
	// combined locks (queue and legacy cells), not queue locks.
	combined bool
	// store, when set, is the store of a fleet another fixture set up (two
	// lockds of one cluster: handover_test.go), and process the Locker's
	// process id there (default "lockd-test").
	store   *model.Store
	process string
	// mode, when set, is the Locker's flag (migration.Static) instead of
	// the phase's (migration.NewPhaseFlag).
	mode lockstep.Mode
	// view serves the web view at lockd.ViewPath, its Recorder observing
	// the Locker.
	view bool
	// lockTTL, when set, is the TTL of the lock cells (lockd --lock-ttl).
	lockTTL time.Duration
	// listener and handler, when set, wrap the listener and the handler
	// the lockd is served with, at each start (fault injection:
	// python_cluster_test.go).
	listener func(net.Listener) net.Listener
	handler  func(http.Handler) http.Handler
}

// newFixture starts a lockd; the test's cleanup stops it and checks that
// it released everything.
func newFixture(t *testing.T, fo fixtureOptions) *fixture {
	t.Helper()
	before := runtime.NumGoroutine()
	ctx := context.Background()
	store := fo.store
	if store == nil {
		store = model.New(&clock.Local{})
		ctl, err := migration.NewController(store, nil)
		require.NoError(t, err)
		require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
		if !fo.combined {
			require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))
		}
	}
	process := fo.process
	if process == "" {
		process = "lockd-test"
	}
	var flag migration.FlagSource
	if fo.mode.Valid() {
		flag = migration.Static(fo.mode)
	} else {
		pf, err := migration.NewPhaseFlag(store, nil)
		require.NoError(t, err)
		flag = pf
	}
	fencing, err := clock.NewGlobal(store, "", &clock.Local{})
	require.NoError(t, err)
	var rec *lockd.Recorder
	mopts := &migration.Options{Separator: "/", Fencing: fencing, Deadlock: fo.deadlock, ProcessID: process}
	if fo.lockTTL > 0 {
		mopts.Queue, mopts.Legacy = &queuelock.Options{TTL: fo.lockTTL}, &shadowlock.Options{TTL: fo.lockTTL}
	}
	if fo.view {
		rec = lockd.NewRecorder(nil)
		mopts.Observer = rec
	}
	locker, err := migration.New(store, flag, mopts)
	require.NoError(t, err)
	f := &fixture{t: t, logs: &syncBuffer{}, tls: fo.tls, store: store, locker: locker, view: fo.view, rec: rec,
		wrapLn: fo.listener, wrapH: fo.handler}
	opts := fo.opts
	opts.Logger = slog.New(slog.NewTextHandler(f.logs, nil))
	var served lockstep.GroupLocker = locker
	if fo.wrap != nil {
		served = fo.wrap(locker)
	}
	f.served, f.opts = served, opts
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, f.serve(ln))
	f.url = "http://" + ln.Addr().String()
	if fo.tls != nil {
		f.url = "https://" + ln.Addr().String()
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		f.mu.Lock()
		defer f.mu.Unlock()
		require.NoError(t, f.server.Close(ctx))
		require.NoError(t, f.hs.Shutdown(ctx))
		<-f.stopped
		require.NoError(t, locker.Close(ctx))
		// Every goroutine the fixture started (the Server's session and
		// lease watchers, the Locker's, the HTTP server's) has ended.
		// (A loop, not require.Eventually, which runs its condition on a
		// goroutine of its own.) A second lockd of a fleet leaves the
		// check to the first's, which runs after its own: goroutines the
		// first starts later would count against the second's.
		for deadline := time.Now().Add(5 * time.Second); fo.store == nil && runtime.NumGoroutine() > before; {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Fatalf("goroutines leaked: %d before the fixture, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	return f
}

// serve starts a lockd Server on the fixture's Locker, served on ln.
func (f *fixture) serve(ln net.Listener) error {
	server, err := lockd.New(f.served, &f.opts)
	if err != nil {
		return err
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true)
	var handler http.Handler = server.Handler()
	if f.view {
		v, err := server.View(&lockd.ViewOptions{Store: f.store, Recorder: f.rec, Refresh: 500 * time.Millisecond})
		if err != nil {
			return err
		}
		mux := http.NewServeMux()
		mux.Handle(lockd.ViewPath, v)
		mux.Handle("/", handler)
		handler = mux
	}
	if f.wrapH != nil {
		handler = f.wrapH(handler)
	}
	if f.wrapLn != nil {
		ln = f.wrapLn(ln)
	}
	hs := &http.Server{Handler: handler, Protocols: protocols, TLSConfig: f.tls,
		ErrorLog: slog.NewLogLogger(f.opts.Logger.Handler(), slog.LevelWarn)}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if f.tls != nil {
			_ = hs.ServeTLS(ln, "", "")
		} else {
			_ = hs.Serve(ln)
		}
	}()
	f.server, f.hs, f.stopped = server, hs, stopped
	return nil
}

// restart stops the lockd as a crash does — every connection dropped at
// once, every session forgotten — and starts a new one on the same address
// and Locker, which knows none of the old one's sessions. The old Server's
// Close releases their locks, as their cells' TTL would after a crash. It
// returns an error rather than failing the test: an HTTP handler calls it.
func (f *fixture) restart() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	addr := strings.TrimPrefix(strings.TrimPrefix(f.url, "http://"), "https://")
	if err := f.hs.Close(); err != nil {
		return fmt.Errorf("closing the HTTP server: %w", err)
	}
	<-f.stopped
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.server.Close(ctx); err != nil {
		return fmt.Errorf("closing the lockd server: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s again: %w", addr, err)
	}
	return f.serve(ln)
}

// drainAndRestart shuts the lockd down gracefully, as lockd does on
// SIGTERM — the lock service closes (draining the sessions that can move)
// while the HTTP server still serves, then the HTTP server closes — and
// starts it again on the same address.
func (f *fixture) drainAndRestart() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	addr := strings.TrimPrefix(strings.TrimPrefix(f.url, "http://"), "https://")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.server.Close(ctx); err != nil {
		return fmt.Errorf("closing the lockd server: %w", err)
	}
	if err := f.hs.Close(); err != nil {
		return fmt.Errorf("closing the HTTP server: %w", err)
	}
	<-f.stopped
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s again: %w", addr, err)
	}
	return f.serve(ln)
}

// client returns a generated Connect client of the fixture speaking proto,
// with the bearer token (if any) and the TLS client configuration (if the
// server serves TLS).
func (f *fixture) client(proto string, bearer string, tlsCfg *tls.Config) lockstepv1connect.LockServiceClient {
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(proto == "grpc" && tlsCfg == nil)
	if proto == "grpc" && tlsCfg == nil {
		protocols.SetHTTP1(false)
		protocols.SetHTTP2(false)
	}
	tr := &http.Transport{Protocols: protocols, TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}
	f.t.Cleanup(tr.CloseIdleConnections)
	var opts []connect.ClientOption
	switch proto {
	case "grpc":
		opts = append(opts, connect.WithGRPC())
	case "json":
		opts = append(opts, connect.WithProtoJSON())
	}
	if bearer != "" {
		opts = append(opts, connect.WithInterceptors(bearerToken(bearer)))
	}
	return lockstepv1connect.NewLockServiceClient(&http.Client{Transport: tr}, f.url, opts...)
}

// bearerToken adds Authorization: Bearer <token> to every call.
type bearerToken string

func (b bearerToken) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		req.Header().Set("Authorization", "Bearer "+string(b))
		return next(ctx, req)
	}
}

func (b bearerToken) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		conn.RequestHeader().Set("Authorization", "Bearer "+string(b))
		return conn
	}
}

func (b bearerToken) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// open opens a session with ttl (0: the default).
func open(t *testing.T, c lockstepv1connect.LockServiceClient, ttl time.Duration) string {
	t.Helper()
	req := &pb.OpenSessionRequest{}
	if ttl != 0 {
		req.Ttl = durpb(ttl)
	}
	res, err := c.OpenSession(context.Background(), connect.NewRequest(req))
	require.NoError(t, err)
	return res.Msg.SessionId
}

// lockReq builds a LockRequest of items "id" or "id:ACCESS" pairs.
func lockReq(session string, items ...*pb.LockItem) *connect.Request[pb.LockRequest] {
	return connect.NewRequest(&pb.LockRequest{SessionId: session, Items: items})
}

func item(id string, a pb.Access) *pb.LockItem { return &pb.LockItem{Id: id, Access: a} }

// requireRefusal checks err's code and its LockError reason.
func requireRefusal(t *testing.T, err error, code connect.Code, reason pb.LockError_Reason) *pb.LockError {
	t.Helper()
	require.Error(t, err)
	var ce *connect.Error
	require.True(t, errors.As(err, &ce), "not a connect error: %v", err)
	require.Equal(t, code, ce.Code(), "%v", err)
	for _, d := range ce.Details() {
		v, derr := d.Value()
		require.NoError(t, derr)
		if le, ok := v.(*pb.LockError); ok {
			require.Equal(t, reason, le.Reason, "%v", err)
			return le
		}
	}
	t.Fatalf("no LockError detail in %v", err)
	return nil
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent logging.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func durpb(d time.Duration) *durationpb.Duration { return durationpb.New(d) }
