package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// errClosing stops a move that Close overtook.
var errClosing = errors.New("lockd client: the session is closing")

// moveTo opens a session on the lockd at url, adopts peer there when the
// session holds locks, reads the new identity's peer token, and installs
// the new session (install), and says how many Locks the move kept and
// lost. What it opened is closed again if it fails.
//
// The token is read before install, as a step of the move: a session
// installed without one would carry nothing at its next move, and lose
// every lock, if that lockd failed before a later GetToken was answered.
// A lockd that adopts the locks and then cannot hand out its token is
// treated as one that failed during the move: the session moves on, with
// the token it carried, to the next lockd.
func (s *Session) moveTo(ctx context.Context, url, peer string) (kept, lost int, err error) {
	c, sent, ttl, err := s.openOn(ctx, url)
	if err != nil {
		return 0, 0, wrap(ctx, err)
	}
	if ttl != s.ttl {
		s.closeOn(c)
		return 0, 0, fmt.Errorf("lockd client: lockd %s granted a session TTL of %v, not the session's %v: give the lockds of a cluster the same TTL bounds: %w",
			url, ttl, s.ttl, ErrUnavailable)
	}
	s.closeLeft(ctx, c)
	var held []*pb.HeldLock
	setSent, got := sent, sent
	if peer != "" && s.holds() {
		setSent = time.Now()
		res, err := c.rpc.SetToken(ctx, connect.NewRequest(&pb.SetTokenRequest{SessionId: c.id, Token: peer}))
		switch {
		case err == nil:
			held = res.Msg.GetLocks()
		case noneHeld(wrap(ctx, err)):
			// Nothing the token names is held any more (its locks were
			// unlocked, here or behind the client's back, or their
			// identity ended): the move adopts nothing, and every Lock the
			// session counts held is lost by the rule below, as when an
			// answer names none of them. The session lives on at c.
		default:
			s.closeOn(c)
			return 0, 0, wrap(ctx, err)
		}
		got = time.Now()
	}
	to, counted := s.assign(ctx, c, held)
	next := peer
	if !s.knobs.AdoptStaleToken {
		if next, err = readPeer(ctx, c); err != nil {
			s.closeOn(c)
			return 0, 0, err
		}
	}
	if kept, lost, err = s.install(c, sent, setSent, got, held, to, counted, next); err != nil {
		s.closeOn(c)
		return 0, 0, err
	}
	return kept, lost, nil
}

// closeLeft closes the session an earlier move left at c's lockd, if any:
// that lockd holds the locks of the session's old identity there, shared
// with the lockd the session moved to, and a lockd refuses to adopt a lock
// it holds itself (LOCKED). The old session leaves them (docs/algorithms.md
// §8.7, "Leaving"): its lockd deletes its own owner cells and finds the
// current holder's, so nothing is released.
func (s *Session) closeLeft(ctx context.Context, c *conn) {
	s.mu.Lock()
	id, ok := s.left[c.url]
	s.mu.Unlock()
	if !ok {
		return
	}
	_, err := c.rpc.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: id}))
	if err == nil || errors.Is(wrap(ctx, err), ErrSessionEnded) {
		s.mu.Lock()
		delete(s.left, c.url)
		s.mu.Unlock()
	}
}

// noneHeld says whether err is a SetToken's refusal of a token none of
// whose locks is still held (UNKNOWN_TOKEN; docs/algorithms.md §8.8, "A
// token naming a released lock"): the token carries nothing, and a move
// goes on without it rather than ending the session. Every lockd of the
// cluster would say the same, and keeping no lock claims nothing.
func noneHeld(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Reason == pb.LockError_REASON_UNKNOWN_TOKEN
}

// holds says whether the session has a Lock.
func (s *Session) holds() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.locks) > 0
}

// key names a lock by what a move can compare: its items in the order
// Lock asked for them, and its fencing token.
func key(items []*pb.LockItem, token int64) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.GetId())
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(int(it.GetAccess())))
		b.WriteByte(1)
	}
	return b.String() + strconv.FormatInt(token, 10)
}

// assign gives each Lock of the session its handle at c, where the
// adopted locks held arrived: the peer token names each acquisition once,
// so of the Locks with one lock's items and fencing token (key), one takes
// the adopted handle — the Lock that took it, or else (it was unlocked)
// one granted by reentrancy — and each other one is counted again with a
// TryLock, which lockd answers without a store request (reentrant, same
// token). A Lock whose TryLock did not only count gets no handle, and
// what it took is given back. counted says which handles TryLock gave.
func (s *Session) assign(ctx context.Context, c *conn, held []*pb.HeldLock) (to map[*Lock]*pb.HeldLock, counted map[string]bool) {
	adopted := map[string]*pb.HeldLock{}
	for _, h := range held {
		adopted[key(h.GetItems(), h.GetToken())] = h
	}
	s.mu.Lock()
	byKey := map[string][]*Lock{}
	for _, l := range s.locks {
		k := key(l.items, l.token)
		if adopted[k] != nil {
			byKey[k] = append(byKey[k], l)
		}
	}
	s.mu.Unlock()
	to, counted = map[*Lock]*pb.HeldLock{}, map[string]bool{}
	for k, ls := range byKey {
		// The Lock that took the acquisition first, then by handle.
		slices.SortFunc(ls, func(a, b *Lock) int {
			if a.reentrant != b.reentrant {
				return cmpBool(a.reentrant, b.reentrant)
			}
			return strings.Compare(a.handle, b.handle)
		})
		to[ls[0]] = adopted[k]
		for _, l := range ls[1:] {
			res, err := c.rpc.TryLock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: c.id, Items: l.items}))
			if err != nil {
				continue
			}
			h := res.Msg.GetLock()
			if !h.GetReentrant() || h.GetToken() != l.token {
				_, _ = c.rpc.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: c.id, LockId: h.GetLockId()}))
				continue
			}
			to[l], counted[h.GetLockId()] = h, true
		}
	}
	return to, counted
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// install makes c the session's: each Lock takes the handle assign gave
// it (the adopted one, or one counted again), and its deadline is the
// adoption's send plus the valid_for c's lockd gave, unless its own
// deadline passed before the answer came (got): then the hold may have
// had a gap (docs/algorithms.md §8.7, a late handover), so the Lock is
// lost. A Lock given no handle is lost; an adopted lock no Lock took is
// released at c, as is a counted handle of a Lock lost. peer, the
// identity's token read at c, replaces the session's. It returns how many
// Locks were kept and lost.
func (s *Session) install(c *conn, sent, setSent, got time.Time, held []*pb.HeldLock, to map[*Lock]*pb.HeldLock, counted map[string]bool,
	peer string) (kept, lost int, err error) {
	used := map[string]bool{}
	locks := map[string]*Lock{}
	var lostLocks []*Lock
	var release []string // counted handles of Locks lost
	s.mu.Lock()
	if s.err != nil || s.root.Err() != nil {
		s.mu.Unlock()
		return 0, 0, errClosing
	}
	for _, l := range s.locks {
		h, ok := to[l]
		switch {
		case ok && !used[h.GetLockId()] && !got.After(l.deadline):
			used[h.GetLockId()] = true
			l.handle, l.deadline = h.GetLockId(), setSent.Add(s.lockTime(h.GetValidFor()))
			locks[l.handle] = l
		case s.knobs.AdoptStaleToken: // the planted defect: claim it kept
			l.deadline = sent.Add(s.ttl)
			locks[l.handle] = l
		default:
			if ok && counted[h.GetLockId()] {
				release = append(release, h.GetLockId())
			}
			l.handle = ""
			lostLocks = append(lostLocks, l)
		}
	}
	s.left[s.c.url] = s.c.id
	kept = len(locks) // locks is s.locks from here: read only under s.mu
	s.c, s.locks, s.deadline = c, locks, sent.Add(s.ttl)
	s.moves++
	s.peer, s.peerAt = peer, s.peerSeq // a GetToken still in flight at the old lockd must not overwrite it
	s.bg.Add(2)                        // under s.mu with s.err nil: Close's Wait comes after
	s.mu.Unlock()
	go s.keepAlive(c)
	go s.watch(c, nil)
	for _, l := range lostLocks {
		l.lose()
	}
	ctx, cancel := context.WithTimeout(c.ctx, max(s.ttl/3, 10*time.Millisecond))
	defer cancel()
	for _, h := range held {
		if !used[h.GetLockId()] { // adopted too late, or named by no Lock
			release = append(release, h.GetLockId())
		}
	}
	for _, h := range release {
		_, _ = c.rpc.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: c.id, LockId: h}))
	}
	s.added()
	if len(release) > 0 {
		s.refreshPeer() // the token read at c names what was just released
	}
	return kept, len(lostLocks), nil
}
