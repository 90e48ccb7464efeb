package lockd

import (
	"context"
	"fmt"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// resolve fills the defaults and refuses negative limits, or a comment
// limit above CommentCeiling.
func (l *Limits) resolve() error {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	def(&l.MaxSessionName, DefaultMaxSessionName)
	def(&l.MaxComment, DefaultMaxComment)
	def(&l.MaxIDsPerRequest, DefaultMaxIDsPerRequest)
	def(&l.MaxSessionsPerPrincipal, DefaultMaxSessionsPerPrincipal)
	def(&l.MaxWaitsPerSession, DefaultMaxWaitsPerSession)
	if l.MaxBodyBytes < 0 {
		return &lockstep.ConfigError{Field: "Limits.MaxBodyBytes", Reason: fmt.Sprintf("%d must not be negative: use 0 for the default (%d) or a positive size", l.MaxBodyBytes, DefaultMaxBodyBytes)}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxSessionName", l.MaxSessionName}, {"MaxComment", l.MaxComment}, {"MaxIDsPerRequest", l.MaxIDsPerRequest},
		{"MaxSessionsPerPrincipal", l.MaxSessionsPerPrincipal}, {"MaxWaitsPerSession", l.MaxWaitsPerSession}} {
		if f.v < 0 {
			return &lockstep.ConfigError{Field: "Limits." + f.name, Reason: fmt.Sprintf("%d must not be negative: use 0 for the default or a positive number", f.v)}
		}
	}
	if l.MaxComment > CommentCeiling {
		return &lockstep.ConfigError{Field: "Limits.MaxComment", Reason: fmt.Sprintf("%d is above %d: a comment is stored in every wait record; use at most %d", l.MaxComment, CommentCeiling, CommentCeiling)}
	}
	return nil
}

// tooLarge is the InvalidArgument refusal of a request over a size limit:
// which limit, and the lockd flag that raises it.
func tooLarge(what string, got, limit int64, flag string) *rpcError {
	return invalid("%s is %d: at most %d (a limit of this lockd: lockd --%s raises it)", what, got, limit, flag)
}

// exhausted is the ResourceExhausted refusal of a count at its limit.
func exhausted(format string, args ...any) *rpcError {
	return &rpcError{code: connect.CodeResourceExhausted, msg: fmt.Sprintf(format, args...)}
}

// limitsInterceptor refuses a request over a per-request limit (a session
// name, a comment, the ids of a Lock) and a Lock beyond the session's
// concurrent waits, before the handler changes anything. It runs after
// authentication (the HTTP middleware) and after the message is decoded.
type limitsInterceptor struct{ s *Server }

func (i limitsInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		lim := i.s.cfg.Limits
		rpc := method(req.Spec().Procedure)
		switch m := req.Any().(type) {
		case *pb.OpenSessionRequest:
			if n := len(m.GetName()); n > lim.MaxSessionName {
				return nil, wire(i.s.refuse(ctx, rpc, who(ctx), "", tooLarge("name (bytes)", int64(n), int64(lim.MaxSessionName), "max-session-name")))
			}
		case *pb.LockRequest:
			if n := len(m.GetItems()); n > lim.MaxIDsPerRequest {
				return nil, wire(i.s.refuse(ctx, rpc, who(ctx), m.GetSessionId(), tooLarge("items (ids in one request)", int64(n), int64(lim.MaxIDsPerRequest), "max-ids-per-request")))
			}
			if n := len(m.GetComment()); n > lim.MaxComment {
				return nil, wire(i.s.refuse(ctx, rpc, who(ctx), m.GetSessionId(), tooLarge("comment (bytes)", int64(n), int64(lim.MaxComment), "max-comment")))
			}
			if req.Spec().Procedure == lockstepv1connect.LockServiceLockProcedure {
				ss := i.s.ownSession(ctx, m.GetSessionId())
				if ss != nil {
					if !ss.beginWait(lim.MaxWaitsPerSession) {
						return nil, wire(i.s.refuse(ctx, rpc, who(ctx), ss.id, exhausted("session %s has %d Lock calls waiting: at most %d at once "+
							"(a limit of this lockd: lockd --max-waits-per-session raises it); wait for one to return, or take the ids in one Lock", quote(ss.id), lim.MaxWaitsPerSession, lim.MaxWaitsPerSession)))
					}
					defer ss.endWait()
				}
			}
		}
		return next(ctx, req)
	}
}

func (i limitsInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (i limitsInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// ownSession returns the live session id of the caller, or nil: the
// handler then refuses the call with the reason.
func (s *Server) ownSession(ctx context.Context, id string) *session {
	pr := principalOf(ctx)
	s.mu.Lock()
	ss := s.live[id]
	s.mu.Unlock()
	if ss == nil || pr == nil || ss.principal.Name != pr.Name {
		return nil
	}
	return ss
}

// beginWait counts a Lock call of the session in flight, unless max are.
func (ss *session) beginWait(max int) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.waits >= max {
		return false
	}
	ss.waits++
	return true
}

// endWait ends what beginWait counted.
func (ss *session) endWait() {
	ss.mu.Lock()
	ss.waits--
	ss.mu.Unlock()
}

// admitSession counts a new session of pr, unless it has
// MaxSessionsPerPrincipal live. Called with s.mu held.
func (s *Server) admitSession(pr *Principal) *rpcError {
	if n := s.perPrincipal[pr.Name]; n >= s.cfg.Limits.MaxSessionsPerPrincipal {
		return exhausted("principal %s has %d live sessions: at most %d (a limit of this lockd: lockd --max-sessions-per-principal raises it); "+
			"close sessions it no longer uses (CloseSession), or share one session between callers", quote(pr.Name), n, s.cfg.Limits.MaxSessionsPerPrincipal)
	}
	s.perPrincipal[pr.Name]++
	return nil
}

// who names the caller in a refusal's log line.
func who(ctx context.Context) string {
	if pr := principalOf(ctx); pr != nil {
		return pr.Name
	}
	return ""
}
