package lockd

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// maxEnded bounds the ended sessions a Server remembers, so that a late
// call naming one learns it expired (and which locks it lost) instead of
// "unknown session".
const maxEnded = 4096

const reasonShutdown = "the server is shutting down"

// Server serves lockstep.v1.LockService over one http.Handler: gRPC,
// gRPC-Web and Connect's HTTP/JSON, with the standard gRPC health service
// beside it. It is safe for concurrent use.
type Server struct {
	locker     lockstep.GroupLocker
	principals atomic.Pointer[Principals] // nil: open mode (SetPrincipals swaps it)
	cfg        config
	log        *slog.Logger
	health     *grpchealth.StaticChecker

	mu           sync.Mutex
	closing      bool
	live         map[string]*session
	perPrincipal map[string]int // live sessions by principal name
	ended        map[string]*session
	endedOrder   []string

	// instance names this Server in its identities' tokens, so that a
	// token of another lockd (or of this one before a restart) is told
	// apart from one whose sessions ended.
	instance string
	idMu     sync.Mutex           // identity membership (identity.go)
	tokens   map[string]*identity // live identities by token

	wg sync.WaitGroup // every session's expiry loop

	viewRecorder atomic.Pointer[Recorder] // the web view's, told of each Lock failed DEADLOCK (View)
}

var _ lockstepv1connect.LockServiceHandler = (*Server)(nil)

// New returns a Server that takes its locks with locker, the process's
// migration.Locker (the Server does not close it).
func New(locker lockstep.GroupLocker, opts *Options) (*Server, error) {
	if locker == nil {
		return nil, &lockstep.ConfigError{Field: "Locker", Reason: "nil: pass the process's migration.Locker (migration.New)"}
	}
	cfg, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	s := &Server{locker: locker, cfg: cfg, log: cfg.Logger,
		health: grpchealth.NewStaticChecker(lockstepv1connect.LockServiceName),
		live:   map[string]*session{}, ended: map[string]*session{}, perPrincipal: map[string]int{},
		instance: randomHex(8), tokens: map[string]*identity{}}
	s.principals.Store(cfg.Principals)
	return s, nil
}

// Handler returns the HTTP handler of the lock service, gRPC server
// reflection and the health service. Serve it over HTTP/2 (TLS, or
// cleartext h2c) for gRPC clients; HTTP/1.1 serves Connect and JSON.
//
// A call of the lock service or of reflection passes, in order: the
// authentication of its headers (withAuthentication: a refused call's body
// is never read), the body's size limit (limitBody, WithReadMaxBytes), the
// decoding of its message, the per-request limits (limitsInterceptor), and
// the handler. Health takes no credential, so that probes need none.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	interceptors := []connect.Interceptor{limitsInterceptor{s}}
	if s.cfg.Metrics != nil {
		interceptors = append([]connect.Interceptor{s.cfg.Metrics.interceptor()}, interceptors...)
	}
	opts := []connect.HandlerOption{connect.WithReadMaxBytes(int(s.cfg.Limits.MaxBodyBytes)), connect.WithInterceptors(interceptors...)}
	guard := func(path string, h http.Handler) {
		mux.Handle(path, closeUnread(s.withAuthentication(s.limitBody(h))))
	}
	guard(lockstepv1connect.NewLockServiceHandler(s, opts...))
	reflector := grpcreflect.NewStaticReflector(lockstepv1connect.LockServiceName, grpchealth.HealthV1ServiceName)
	ropts := []connect.HandlerOption{connect.WithReadMaxBytes(int(s.cfg.Limits.MaxBodyBytes))}
	guard(grpcreflect.NewHandlerV1(reflector, ropts...))
	guard(grpcreflect.NewHandlerV1Alpha(reflector, ropts...))
	mux.Handle(grpchealth.NewHandler(s.health))
	return mux
}

// SetPrincipals replaces the table of callers (a reload of the principals
// file, lockd's SIGHUP): calls from then on are authenticated and granted
// by p. Live sessions stay, each owned by its principal's name; a session
// whose principal p no longer lists lives on until its TTL, as no caller
// can name it any more. The server's mode cannot change: p must be
// non-nil on a Server made with Principals, and SetPrincipals is refused
// in open mode.
func (s *Server) SetPrincipals(p *Principals) error {
	if p == nil || s.principals.Load() == nil {
		return &lockstep.ConfigError{Field: "Principals", Reason: "a reload cannot switch between open mode and principals: restart lockd to change its mode"}
	}
	s.principals.Store(p)
	return nil
}

// Close stops taking sessions (health turns NOT_SERVING), drains the
// sessions that can move to another lockd (drain.go), ends every session
// left (watchers get CLOSED with the reason) releasing its locks, and
// waits for the Server's goroutines. ctx bounds the drain and the
// releases; what they cannot delete expires after its TTL.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	all := make([]*session, 0, len(s.live))
	for _, ss := range s.live {
		all = append(all, ss)
	}
	s.mu.Unlock()
	s.health.SetStatus(lockstepv1connect.LockServiceName, grpchealth.StatusNotServing)
	s.health.SetStatus("", grpchealth.StatusNotServing)
	for _, ss := range s.drain(ctx, all) {
		s.endSession(ctx, ss, closed, reasonShutdown)
	}
	s.wg.Wait()
	return nil
}

// openSession starts a session for pr.
func (s *Server) openSession(rctx context.Context, pr *Principal, ttl time.Duration, name string) (*session, error) {
	ctx, end := context.WithCancel(context.Background())
	ss := &session{id: "s-" + randomHex(16), name: name, principal: pr, ttl: ttl, clock: s.cfg.Clock,
		ctx: ctx, end: end, released: make(chan struct{}), watchers: map[chan *pb.SessionEvent]struct{}{}}
	ss.deadline = s.cfg.Clock.Elapsed() + ttl.Microseconds()
	id := newIdentity(s.instance, pr, s.locker)
	id.members[ss] = struct{}{}
	ss.ident = id
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		end()
		return nil, mapError(lockstep.ErrClosed, "", "")
	}
	if err := s.admitSession(pr); err != nil {
		s.mu.Unlock()
		end()
		return nil, s.refuse(rctx, "OpenSession", pr.Name, "", err)
	}
	s.idMu.Lock()
	s.tokens[id.token] = id
	s.idMu.Unlock()
	s.live[ss.id] = ss
	s.wg.Add(1)
	s.mu.Unlock()
	s.cfg.Metrics.sessionOpened()
	go s.expireWhenIdle(ss)
	return ss, nil
}

// expireWhenIdle ends ss when its deadline passes without a call naming it.
func (s *Server) expireWhenIdle(ss *session) {
	defer s.wg.Done()
	for {
		left := ss.remaining()
		if left <= 0 {
			ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Release)
			s.endSession(ctx, ss, expired, expiredReason(ss))
			cancel()
			return
		}
		if s.cfg.Clock.Sleep(ss.ctx, left) != nil {
			return // ended otherwise
		}
	}
}

// expiredReason is why ss expired.
func expiredReason(ss *session) string { return "no call named it for its TTL of " + ss.ttl.String() }

// endSession ends ss once: its calls in flight are cancelled, it leaves
// its identity, and if it was the identity's last session the identity's
// locks are released (lost, if it expired); its watchers are sent the final
// event.
func (s *Server) endSession(ctx context.Context, ss *session, state sessionState, reason string) {
	s.idMu.Lock()
	id, ok := ss.finish(state, reason)
	var hs []*handle
	var last bool
	if ok {
		if hs, last = id.leave(ss, state == expired); last {
			delete(s.tokens, id.token)
		}
	}
	s.idMu.Unlock()
	if !ok {
		return
	}
	s.cfg.Metrics.sessionEnded()
	if state == expired {
		s.log.Warn("lockd: session expired; releasing its identity's locks (lost to it) unless another session shares the identity",
			"session", ss.id, "principal", ss.principal.Name, "ttl", ss.ttl, "identity", id.name, "last", last, "locks", len(hs))
	}
	ss.end()
	for _, h := range hs {
		h.release()
		if err := h.lock.Unlock(ctx); err != nil && !errors.Is(err, lockstep.ErrLost) {
			s.log.Warn("lockd: release at session end failed; the cells expire with their TTL", "session", ss.id, "lock", h.id, "error", err)
		}
	}
	if last {
		id.watch.Wait()
	}
	close(ss.released)
	s.mu.Lock()
	delete(s.live, ss.id)
	if s.perPrincipal[ss.principal.Name]--; s.perPrincipal[ss.principal.Name] <= 0 {
		delete(s.perPrincipal, ss.principal.Name)
	}
	s.ended[ss.id] = ss
	s.endedOrder = append(s.endedOrder, ss.id)
	if len(s.endedOrder) > maxEnded {
		delete(s.ended, s.endedOrder[0])
		s.endedOrder = s.endedOrder[1:]
	}
	s.mu.Unlock()
}

// session returns the live session id names, owned by pr, and counts the
// call as a sign of life. It refuses a session of another principal, and
// reports one that ended.
func (s *Server) session(ctx context.Context, rpc string, pr *Principal, id string) (*session, error) {
	if id == "" {
		return nil, invalid("session_id is empty: call OpenSession first and pass the session_id it returns")
	}
	s.mu.Lock()
	ss, ok := s.live[id]
	if !ok {
		ss, ok = s.ended[id]
	}
	s.mu.Unlock()
	if !ok {
		return nil, &rpcError{code: connect.CodeNotFound, reason: pb.LockError_REASON_UNKNOWN_SESSION, session: id,
			msg: "no session " + quote(id) + " on this lockd (it ended long ago, or was opened on another lockd): open a session with OpenSession"}
	}
	if ss.principal.Name != pr.Name {
		return nil, s.refuse(ctx, rpc, pr.Name, id, &rpcError{code: connect.CodePermissionDenied, reason: pb.LockError_REASON_NOT_YOUR_SESSION, session: id,
			msg: "session " + quote(id) + " belongs to another principal: principal " + quote(pr.Name) + " may use only the sessions it opened"})
	}
	switch ss.touch() {
	case touched:
		return ss, nil
	case overdue: // ended here rather than by its expiry loop, which has not run yet
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.Release)
		s.endSession(ectx, ss, expired, expiredReason(ss))
		cancel()
	}
	return nil, ss.endedError()
}

// handleNumber is the number of a handle id, "l-<n>".
func handleNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "l-"))
	return n
}

// sortHeld orders held locks by their handle's number.
func sortHeld(hs []*pb.HeldLock) {
	sort.Slice(hs, func(i, j int) bool { return handleNumber(hs[i].LockId) < handleNumber(hs[j].LockId) })
}

// sortHandles orders handles by their number.
func sortHandles(hs []*handle) {
	sort.Slice(hs, func(i, j int) bool { return handleNumber(hs[i].id) < handleNumber(hs[j].id) })
}
