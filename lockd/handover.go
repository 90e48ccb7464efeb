package lockd

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Tokens across lockds (doc.go, "Across lockds"). With Options.PeerKey,
// GetToken returns a peer token: the identity token, then the identity's
// locks as the library's share tokens (lockstep.Sharer), then an
// HMAC-SHA256 of all of it under the key the lockds of the cluster share:
//
//	lkt2.<instance>.<secret>.<base64url payload>.<base64url mac>
//
// The lockd that issued it reads it as its identity token (the first three
// fields); another lockd with the same key adopts the locks it names
// (migration.Locker's Adopt) into an identity of its own. The MAC makes the
// owner principal the payload names trustworthy, so that adopt_from is
// judged on it as within one lockd; the share tokens are capabilities, as
// the identity token is a credential.
const peerTokenVersion = "lkt2"

// MinPeerKey is the shortest Options.PeerKey New accepts, in bytes.
const MinPeerKey = 32

// peerPayload is what a peer token carries.
type peerPayload struct {
	Owner    string     `json:"owner"`    // the identity's principal
	Identity string     `json:"identity"` // its public name on the issuing lockd
	Locks    []peerLock `json:"locks"`
	Refused  []string   `json:"refused,omitempty"` // handles whose locks cannot be shared (mode legacy or combined)
}

// peerLock is one of the identity's locks: the items its Lock asked for
// and the library's share token.
type peerLock struct {
	Items []peerItem `json:"items"`
	Share string     `json:"share"`
}

type peerItem struct {
	ID     string    `json:"id"`
	Access pb.Access `json:"access"`
}

// peerToken returns the peer token of id as it stands: its locks shared
// (lockstep.Sharer's Share: no request; from now on an Unlock of them here
// leaves them to any other holder). It names each acquisition once, by the
// first handle that still holds a lock of it (acquisitions): a handle that
// only counted what earlier handles hold is left out, and named once they
// are unlocked. A lock already lost is left out; one whose mode cannot be
// shared is named in Refused, so that another lockd refuses the token
// rather than adopt part of the identity.
func (s *Server) peerToken(id *identity) string {
	sh, _ := s.locker.(lockstep.Sharer)
	p := peerPayload{Owner: id.owner.Name, Identity: id.name}
	for _, h := range acquisitions(id.handles()) {
		if sh == nil {
			p.Refused = append(p.Refused, h.id)
			continue
		}
		tok, err := sh.Share(h.lock)
		switch {
		case errors.Is(err, lockstep.ErrIncompatibleMode):
			p.Refused = append(p.Refused, h.id)
			continue
		case err != nil:
			continue // lost or released: nothing to hand over
		}
		l := peerLock{Share: tok}
		for _, it := range h.items {
			l.Items = append(l.Items, peerItem{ID: it.GetId(), Access: it.GetAccess()})
		}
		p.Locks = append(p.Locks, l)
	}
	body, _ := json.Marshal(p) // plain strings and numbers: never fails
	_, secret, _ := strings.Cut(strings.TrimPrefix(id.token, tokenVersion+"."), ".")
	head := peerTokenVersion + "." + s.instance + "." + secret + "." + base64.RawURLEncoding.EncodeToString(body)
	return head + "." + base64.RawURLEncoding.EncodeToString(s.mac(head))
}

// acquisitions returns the handles of hs, in order, that hold a lock no
// earlier handle of hs holds: a handle is the library's group Lock, whose
// members (MemberLocks) a unit of work's later Locks of the same ids share
// and count (lockstep.Unit). A handle granted by reentrancy alone
// holds only members an earlier handle holds, and is left out while that
// handle lives; once it is unlocked, the handle left holds them and is
// kept. Siblings (rx/1 and rx/2, sharing the intention lock on rx) each
// hold a member of their own, and are both kept.
func acquisitions(hs []*handle) []*handle {
	seen := map[any]bool{}
	var out []*handle
	for _, h := range hs {
		members := []lockstep.Lock{h.lock}
		if g, ok := h.lock.(interface{ MemberLocks() []lockstep.Lock }); ok {
			members = g.MemberLocks()
		}
		own := false
		for _, m := range members {
			if !reflect.ValueOf(m).Comparable() {
				own = true // cannot tell: keep it, as a lock of its own
				continue
			}
			if !seen[m] {
				seen[m], own = true, true
			}
		}
		if own {
			out = append(out, h)
		}
	}
	return out
}

func (s *Server) mac(head string) []byte {
	m := hmac.New(sha256.New, s.cfg.PeerKey)
	m.Write([]byte(head))
	return m.Sum(nil)
}

// parsePeerToken splits a peer token: its identity token (lkt1 form), its
// instance, and the payload if the MAC verifies under key. ok is false for
// a malformed token; verified false for a well-formed one whose MAC does
// not (another cluster's key, or edited).
func parsePeerToken(tok string, key []byte) (local, inst string, p peerPayload, ok, verified bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 5 || parts[0] != peerTokenVersion {
		return "", "", p, false, false
	}
	local = tokenVersion + "." + parts[1] + "." + parts[2]
	if inst, ok = parseToken(local); !ok {
		return "", "", p, false, false
	}
	body, err := base64.RawURLEncoding.DecodeString(parts[3])
	if err != nil || json.Unmarshal(body, &p) != nil {
		return "", "", p, false, false
	}
	sum, err := base64.RawURLEncoding.DecodeString(parts[4])
	if err != nil {
		return "", "", p, false, false
	}
	if len(key) == 0 {
		return local, inst, p, true, false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join(parts[:4], ".")))
	return local, inst, p, true, hmac.Equal(sum, m.Sum(nil))
}

// adoptPeer is SetToken with a verified peer token of another lockd: the
// session leaves its identity for a new one of this lockd holding the
// token's locks, adopted through the library (so the same leases' owners
// and fencing tokens, continued by this process's own renewals). A lock
// the token names that is no longer held is skipped (adoptLocks); the
// answer names the locks adopted. Every refusal changes nothing; a failed
// adoption leaves what it adopted (the giver still holds it).
func (s *Server) adoptPeer(ctx context.Context, rpc string, pr *Principal, ss *session, p peerPayload) (*connect.Response[pb.SetTokenResponse], error) {
	refuse := func(e *rpcError) (*connect.Response[pb.SetTokenResponse], error) {
		return nil, wire(s.refuse(ctx, rpc, pr.Name, ss.id, e))
	}
	if s.principals.Load() != nil && pr.Name != p.Owner && !slices.Contains(pr.AdoptFrom, p.Owner) {
		return refuse(&rpcError{code: connect.CodePermissionDenied, reason: pb.LockError_REASON_NOT_YOUR_TOKEN, session: ss.id,
			msg: "the token's identity is principal " + quote(p.Owner) + "'s: principal " + quote(pr.Name) + " may adopt only its own identities, " +
				"or those of the principals its \"adopt_from\" lists in the principals file"})
	}
	if len(p.Refused) > 0 {
		return refuse(&rpcError{code: connect.CodeFailedPrecondition, reason: pb.LockError_REASON_INCOMPATIBLE_MODE, session: ss.id,
			msg: "the token's identity holds " + strconv.Itoa(len(p.Refused)) + " lock(s) taken in mode legacy or combined, which cannot move to another lockd: " +
				"SetToken on the lockd that issued the token, or release those locks and call GetToken again"})
	}
	sh, ok := s.locker.(lockstep.Sharer)
	if !ok {
		return refuse(&rpcError{code: connect.CodeFailedPrecondition, reason: pb.LockError_REASON_OTHER_LOCKD, session: ss.id,
			msg: "this lockd's Locker cannot adopt locks (it is no lockstep.Sharer): SetToken on the lockd that issued the token"})
	}
	owner := pr
	if o := s.principals.Load().named(p.Owner); o != nil {
		owner = o
	}
	to := newIdentity(s.instance, owner, s.locker)
	wctx, cancel := s.bound(ctx, ss)
	defer cancel(nil)
	// The adopted locks join the new identity's unit of work, as if it had
	// taken them (its Adopt), when the Locker has units.
	var ad adopter = sh
	if ua, ok := to.unit.(adopter); ok {
		ad = ua
	}
	got, skipped, e := s.adoptLocks(wctx, ad, ss, to, p)
	if e != nil {
		return refuse(e)
	}
	s.idMu.Lock()
	from := ss.identity()
	if err := s.move(ss, from, to); err != nil {
		s.idMu.Unlock()
		to.mu.Lock()
		to.ended = true
		to.mu.Unlock()
		giveBack(ctx, got)
		return refuse(err)
	}
	s.tokens[to.token] = to
	s.idMu.Unlock()
	s.cfg.Metrics.joined()
	locks, _ := to.held()
	if len(skipped) > 0 {
		s.log.Warn("lockd: locks the peer token names are no longer held: not adopted", "session", ss.id, "identity", to.name,
			"from", p.Identity, "not_adopted", skipped)
	}
	s.log.Info("lockd: session adopted an identity of another lockd", "session", ss.id, "principal", pr.Name, "identity", to.name,
		"from", p.Identity, "owner", p.Owner, "left", from.name, "locks", len(locks), "not_adopted", len(skipped))
	return connect.NewResponse(&pb.SetTokenResponse{Identity: to.name, Locks: locks}), nil
}

// adopter is what adoptLocks adopts through: the identity's unit of work
// (its Adopt counts a member the unit already holds by the same
// acquisition), or the Locker's Sharer when it has no units.
type adopter interface {
	Adopt(ctx context.Context, tok string) (lockstep.Lock, error)
}

// adoptLocks adopts each lock of p into to, through ad (to's unit). A lock whose Adopt finds no holder left
// (lockstep.ErrReleased: released or expired since the token was read) is
// skipped and returned in skipped, as its ids: the library's witness read
// refuses to adopt it and writes nothing, so a skipped lock is never held
// here, and the answer, which names only the locks adopted, tells the
// caller it was not kept. If no lock of a token that names some is still
// held, the token is refused (UNKNOWN_TOKEN): the identity has nothing left
// to continue. Any other failure gives back what was adopted and refuses
// the token whole.
func (s *Server) adoptLocks(actx context.Context, ad adopter, ss *session, to *identity, p peerPayload) (got []*handle, skipped []string, e *rpcError) {
	for _, pl := range p.Locks {
		l, err := ad.Adopt(actx, pl.Share)
		if errors.Is(err, lockstep.ErrReleased) {
			ids := make([]string, len(pl.Items))
			for i, it := range pl.Items {
				ids[i] = it.ID
			}
			skipped = append(skipped, strings.Join(ids, ","))
			continue
		}
		if err != nil {
			giveBack(actx, got)
			e := mapError(err, ss.id, "")
			if errors.Is(err, lockstep.ErrShareToken) {
				e = &rpcError{code: connect.CodeFailedPrecondition, reason: pb.LockError_REASON_OTHER_LOCKD, session: ss.id, cause: err,
					msg: "the token's locks live in tables or a keyspace this lockd does not use: SetToken on a lockd of the issuing lockd's cluster"}
			}
			return nil, nil, e
		}
		items := make([]*pb.LockItem, len(pl.Items))
		for i, it := range pl.Items {
			items[i] = &pb.LockItem{Id: it.ID, Access: it.Access}
		}
		h, ok := to.add(ss, l, items, s.log)
		if !ok {
			_ = l.Unlock(context.WithoutCancel(actx))
			giveBack(actx, got)
			return nil, nil, ss.endedError()
		}
		got = append(got, h)
	}
	if len(got) == 0 && len(skipped) > 0 {
		return nil, nil, &rpcError{code: connect.CodeNotFound, reason: pb.LockError_REASON_UNKNOWN_TOKEN, session: ss.id,
			msg: "no lock the token names is still held (its identity's sessions ended, or the locks were unlocked): take the locks with Lock instead"}
	}
	return got, skipped, nil
}

// giveBack releases the locks a failed adoption took: each Unlock leaves,
// since the giver still holds them.
func giveBack(ctx context.Context, got []*handle) {
	for _, h := range got {
		_ = h.lock.Unlock(context.WithoutCancel(ctx))
		h.release()
	}
}

// named returns the principal called name, or nil (nil in open mode).
func (p *Principals) named(name string) *Principal {
	if p == nil {
		return nil
	}
	for i := range p.List {
		if p.List[i].Name == name {
			return &p.List[i]
		}
	}
	return nil
}
