package lockd

import (
	"context"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"connectrpc.com/connect"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// GetToken returns the token of the session's identity (seed 003's
// getToken). It changes nothing.
func (s *Server) GetToken(ctx context.Context, req *connect.Request[pb.GetTokenRequest]) (*connect.Response[pb.GetTokenResponse], error) {
	pr, err := s.authenticate(ctx, "GetToken")
	if err != nil {
		return nil, wire(err)
	}
	ss, err := s.session(ctx, "GetToken", pr, req.Msg.GetSessionId())
	if err != nil {
		return nil, wire(err)
	}
	id := ss.identity()
	tok := id.token
	if len(s.cfg.PeerKey) > 0 {
		tok = s.peerToken(id) // handover.go: another lockd of the cluster may adopt it
		id.mu.Lock()
		id.movable = true
		id.mu.Unlock()
	}
	return connect.NewResponse(&pb.GetTokenResponse{Token: tok, Identity: id.name}), nil
}

// SetToken makes the session share the identity the token names (seed
// 003's setToken), as lockd/doc.go says; every refusal changes nothing.
func (s *Server) SetToken(ctx context.Context, req *connect.Request[pb.SetTokenRequest]) (*connect.Response[pb.SetTokenResponse], error) {
	const rpc = "SetToken"
	pr, err := s.authenticate(ctx, rpc)
	if err != nil {
		return nil, wire(err)
	}
	ss, err := s.session(ctx, rpc, pr, req.Msg.GetSessionId())
	if err != nil {
		return nil, wire(err)
	}
	tok := req.Msg.GetToken()
	inst, ok := parseToken(tok)
	var peer *peerPayload
	if !ok {
		if local, pinst, p, pok, verified := parsePeerToken(tok, s.cfg.PeerKey); pok {
			switch {
			case pinst == s.instance:
				tok, inst, ok = local, pinst, true // this lockd's own: its identity token
			case !verified && len(s.cfg.PeerKey) > 0:
				return nil, wire(s.refuse(ctx, rpc, pr.Name, ss.id, &rpcError{code: connect.CodeInvalidArgument, reason: pb.LockError_REASON_INVALID_TOKEN, session: ss.id,
					msg: "the peer token's signature does not verify under this lockd's peer key (a lockd of another cluster, or an edited token): pass the token GetToken returned, unchanged, to a lockd of the issuing lockd's cluster"}))
			case verified:
				inst, ok, peer = pinst, true, &p
			default:
				inst, ok = pinst, true // no key here: refused below as another lockd's
			}
		}
	}
	if !ok {
		return nil, wire(s.refuse(ctx, rpc, pr.Name, ss.id, &rpcError{code: connect.CodeInvalidArgument, reason: pb.LockError_REASON_INVALID_TOKEN, session: ss.id,
			msg: "the token (" + strconv.Itoa(len(tok)) + " bytes) is not a lockd identity token (\"" + tokenVersion + ".<instance>.<secret>\"): pass the token GetToken returned, unchanged"}))
	}
	if inst != s.instance && peer != nil {
		return s.adoptPeer(ctx, rpc, pr, ss, *peer) // handover.go
	}
	if inst != s.instance {
		return nil, wire(s.refuse(ctx, rpc, pr.Name, ss.id, &rpcError{code: connect.CodeFailedPrecondition, reason: pb.LockError_REASON_OTHER_LOCKD, session: ss.id,
			msg: "the token was issued by another lockd (instance " + inst + "; this is " + s.instance + "), or by this one before it restarted: " +
				"identities live in one lockd unless the lockds share a peer key (Options.PeerKey): call SetToken on the lockd whose session gave the token, with a session opened there"}))
	}
	s.idMu.Lock()
	defer s.idMu.Unlock()
	to := s.tokens[tok]
	if to == nil {
		return nil, wire(s.refuse(ctx, rpc, pr.Name, ss.id, &rpcError{code: connect.CodeNotFound, reason: pb.LockError_REASON_UNKNOWN_TOKEN, session: ss.id,
			msg: "no identity with this token on this lockd: every session that had it has ended, which released its locks (or the token was never issued): " +
				"take the locks with Lock instead"}))
	}
	if !s.mayAdopt(pr, to.owner) {
		return nil, wire(s.refuse(ctx, rpc, pr.Name, ss.id, &rpcError{code: connect.CodePermissionDenied, reason: pb.LockError_REASON_NOT_YOUR_TOKEN, session: ss.id,
			msg: "the token's identity is principal " + quote(to.owner.Name) + "'s: principal " + quote(pr.Name) + " may adopt only its own identities, " +
				"or those of the principals its \"adopt_from\" lists in the principals file"}))
	}
	from := ss.identity()
	if from == to {
		return nil, wire(s.refuse(ctx, rpc, pr.Name, ss.id, &rpcError{code: connect.CodeFailedPrecondition, reason: pb.LockError_REASON_OWN_TOKEN, session: ss.id,
			msg: "session " + ss.id + " already has the identity this token names (" + to.name + "): nothing to adopt"}))
	}
	if err := s.move(ss, from, to); err != nil {
		return nil, wire(s.refuse(ctx, rpc, pr.Name, ss.id, err))
	}
	s.cfg.Metrics.joined()
	locks, _ := to.held()
	s.log.Info("lockd: session joined an identity", "session", ss.id, "principal", pr.Name, "identity", to.name, "owner", to.owner.Name, "left", from.name, "locks", len(locks))
	return connect.NewResponse(&pb.SetTokenResponse{Identity: to.name, Locks: locks}), nil
}

// move takes ss out of its identity from and into to; s.idMu is held. It
// refuses, changing nothing, when ss has ended, or is from's last session
// and leaving would release locks or strand a Lock in flight.
func (s *Server) move(ss *session, from, to *identity) *rpcError {
	from.mu.Lock()
	defer from.mu.Unlock()
	ss.mu.Lock()
	switch {
	case ss.state != live:
		ss.mu.Unlock()
		return ss.endedError()
	case len(from.members) == 1 && (len(from.locks) > 0 || ss.inflight > 0):
		n, inflight := len(from.locks), ss.inflight
		ss.mu.Unlock()
		return &rpcError{code: connect.CodeFailedPrecondition, reason: pb.LockError_REASON_HOLDS_LOCKS, session: ss.id,
			msg: "session " + ss.id + " is the last of its identity and holds " + strconv.Itoa(n) + " lock(s), with " + strconv.Itoa(inflight) +
				" Lock call(s) in flight: leaving the identity would release them (seed 003's setToken does so silently; lockd refuses): " +
				"UnlockAll and let its Lock calls return first, or adopt the token with a new session"}
	}
	ss.ident = to
	ss.mu.Unlock()
	delete(from.members, ss)
	if len(from.members) == 0 {
		from.ended = true // it held nothing: nothing to release
		delete(s.tokens, from.token)
	}
	to.mu.Lock()
	to.members[ss] = struct{}{}
	to.mu.Unlock()
	return nil
}

// mayAdopt reports whether pr may adopt an identity owner's sessions opened:
// in open mode anyone, otherwise the same principal or one whose
// adopt_from names owner.
func (s *Server) mayAdopt(pr, owner *Principal) bool {
	return s.principals.Load() == nil || pr.Name == owner.Name || slices.Contains(pr.AdoptFrom, owner.Name)
}

// parseToken checks a token's shape, "lkt1.<16 hex>.<32 hex>", and returns
// its lockd instance.
func parseToken(tok string) (string, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != tokenVersion || len(parts[1]) != 16 || len(parts[2]) != 32 {
		return "", false
	}
	for _, p := range parts[1:] {
		if _, err := hex.DecodeString(p); err != nil || strings.ToLower(p) != p {
			return "", false
		}
	}
	return parts[1], true
}
