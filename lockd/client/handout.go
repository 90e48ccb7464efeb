package client

import (
	"context"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// handOut records l, which c's lockd granted to a Lock call, and returns
// it to the caller. A session that can move hands a Lock out only with a
// peer token that names it (docs/algorithms.md §8.8, "Handing a Lock
// out"): it reads the identity's token at c first, and records the Lock
// and that token in one step, while the session still uses c and no move
// off c is under way, so that every later move carries a token naming it.
// When that cannot be — a move off c began before (its token was chosen
// when it began, and names no lock granted after), or c gave no token —
// the Lock was never the caller's: the call waits for the move, gives the
// lock back at c and fails (notCarried), rather than hand out a lock the
// next move would lose.
func (s *Session) handOut(ctx context.Context, c *conn, l *Lock) (lockstep.Lock, error) {
	var peer string
	var seq uint64
	var perr error
	needToken := s.moving() && !s.knobs.AdoptStaleToken
	if needToken && !s.off(c) {
		peer, seq, perr = s.tokenAfter(ctx, c)
	}
	s.mu.Lock()
	// A token not read because the session was off c by then: the lock is
	// not handed out, whatever became of that move.
	skipped := needToken && perr == nil && peer == ""
	moved := s.c != c || s.movingOff == c || skipped
	lost := s.err != nil || s.lostEarly[l.handle] // ended, or lost, while the call was answered
	if !lost && !moved && perr == nil {
		s.locks[l.handle] = l
		if peer != "" && seq > s.peerAt {
			s.peer, s.peerAt = peer, seq
		}
	}
	s.callEndsLocked()
	s.mu.Unlock()
	switch {
	case moved:
		return nil, s.notCarried(ctx, c, l, fmt.Sprintf("the session moved off lockd %s while it granted %s", c.url, l.id), nil)
	case perr != nil && !lost:
		s.failed(ctx, c, perr) // a lockd that could not answer GetToken failed: move now
		return nil, s.notCarried(ctx, c, l, fmt.Sprintf("lockd %s granted %s but gave no peer token naming it, so no move could carry it", c.url, l.id), perr)
	case lost:
		l.lose()
	}
	s.added()
	return l, nil
}

// off says whether the session has moved off c, or a move off c is under
// way.
func (s *Session) off(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c != c || s.movingOff == c
}

// tokenAfter reads, at c, the peer token of the session's identity after a
// Lock was answered there (so it names that lock), and the number of its
// GetToken (peerSeq).
func (s *Session) tokenAfter(ctx context.Context, c *conn) (string, uint64, error) {
	s.mu.Lock()
	s.peerSeq++
	seq := s.peerSeq
	s.mu.Unlock()
	tctx, cancel := context.WithTimeout(ctx, max(s.ttl/3, 10*time.Millisecond))
	defer cancel()
	res, err := c.rpc.GetToken(tctx, connect.NewRequest(&pb.GetTokenRequest{SessionId: c.id}))
	if err != nil {
		return "", seq, wrap(ctx, err)
	}
	return res.Msg.GetToken(), seq, nil
}

// notCarried ends a Lock call whose lock l, granted at c, is not handed
// out (handOut says why): it waits for a move under way to finish, gives
// l back at c (a lockd that does not answer releases it when the session
// left there lapses), and returns the error for the caller: the session's
// end if the move failed, otherwise one wrapping ErrUnavailable (and
// cause, if any), after which the caller may Lock again.
func (s *Session) notCarried(ctx context.Context, c *conn, l *Lock, why string, cause error) error {
	s.moveMu.Lock() // the move under way, if any, is done once it is free
	ended := s.Err()
	s.moveMu.Unlock()
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(s.ttl/3, 10*time.Millisecond))
	defer cancel()
	given := "it was given back there"
	if _, err := c.rpc.Unlock(uctx, connect.NewRequest(&pb.UnlockRequest{SessionId: c.id, LockId: l.handle})); err != nil {
		given = "it could not be given back (" + err.Error() + "); that lockd releases it when the session left there lapses"
	}
	if ended != nil {
		return fmt.Errorf("lockd client: %s, and %s: %w", why, given, ended)
	}
	if cause != nil {
		return fmt.Errorf("lockd client: %s (%w), and %s: Lock again: %w", why, cause, given, ErrUnavailable)
	}
	return fmt.Errorf("lockd client: %s, and %s: Lock again: %w", why, given, ErrUnavailable)
}
