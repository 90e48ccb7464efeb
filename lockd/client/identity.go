package client

import (
	"context"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Token returns the token of the session's identity (seed 003's getToken):
// a secret another session of the same lockd passes to Adopt to share the
// identity and its locks. It changes nothing.
func (s *Session) Token(ctx context.Context) (string, error) {
	if err := s.Err(); err != nil {
		return "", err
	}
	c := s.cur()
	res, err := c.rpc.GetToken(ctx, connect.NewRequest(&pb.GetTokenRequest{SessionId: c.id}))
	if err != nil {
		err = wrap(ctx, err)
		s.endIfExpired(c, err)
		return "", err
	}
	return res.Msg.GetToken(), nil
}

// Adopt makes this session share the identity tok names (seed 003's
// setToken; lockd's SetToken): it then holds every lock that identity
// holds, returned here as Locks of this session (same handles and fencing
// tokens: nothing was released or taken again), and every lock the
// identity's sessions take later (the giver's later locks have no Lock
// here: UnlockAll releases them, and lockd's DescribeSession lists them).
// The locks are released when the identity's last session leaves it, so
// the giver may Close once Adopt has returned.
//
// Refusals change nothing. The error is an *Error whose Reason says which
// (lockd/doc.go): a malformed token, or one of another lockd, wraps
// lockstep.ErrShareToken; one whose sessions have all ended (its locks
// were released) lockstep.ErrReleased; another principal's without an
// adopt_from grant ErrNotAllowed; OWN_TOKEN and HOLDS_LOCKS (this session
// is the last of its identity and holds locks: UnlockAll first) wrap
// nothing more.
func (s *Session) Adopt(ctx context.Context, tok string) ([]lockstep.Lock, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	c := s.cur()
	s.callStarts()
	sent := time.Now()
	res, err := c.rpc.SetToken(ctx, connect.NewRequest(&pb.SetTokenRequest{SessionId: c.id, Token: tok}))
	if err != nil {
		s.callEnds()
		err = wrap(ctx, err)
		s.endIfExpired(c, err)
		return nil, fmt.Errorf("lockd client: session %s: adopt: %w", c.id, err)
	}
	out := make([]lockstep.Lock, 0, len(res.Msg.GetLocks()))
	s.mu.Lock()
	ended := s.err != nil || s.c != c
	for _, h := range res.Msg.GetLocks() {
		l := newLock(s, h, h.GetItems())
		l.deadline = sent.Add(s.lockTime(h.GetValidFor()))
		if s.lostEarly[l.handle] { // a LOCK_LOST for it came while SetToken was answered
			l.lose()
		}
		if !ended {
			if known, ok := s.locks[l.handle]; ok {
				l = known // adopted back: the Lock this session already has
			} else {
				s.locks[l.handle] = l
			}
		}
		out = append(out, l)
	}
	s.callEndsLocked()
	s.mu.Unlock()
	s.added()
	s.refreshPeer()
	if ended {
		for _, l := range out {
			l.(*Lock).lose()
		}
	}
	return out, nil
}
