package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// keepAlive calls KeepAlive every TTL/3, or within half the time the
// earliest lock has left, and after a failure every TTL/10, moving the
// session's deadline to the send of each answered call plus the TTL (lockd
// counts the TTL from its receipt, which is later) and each lock's as the
// answer says (valid.go). It ends the session when lockd says it ended, or
// when the deadline passes. With several lockds, a call that fails for
// want of an answer (Unavailable, DeadlineExceeded) moves the session
// (failover.go), and each call is cut at half the time the session and its
// earliest lock have left, so that a lockd that hangs leaves the move the
// other half. It runs until c is given up.
func (s *Session) keepAlive(c *conn) {
	defer s.bg.Done()
	ctx := c.ctx
	every, retry := s.ttl/3, max(s.ttl/10, 10*time.Millisecond)
	wait := every
	// due is when the next call goes out. A lock added since can only
	// bring it forward (its time may end sooner): were the wait timed
	// again from each new lock, a caller taking locks more often than the
	// wait would keep the call from ever going out, and the session would
	// lapse.
	due := time.Now().Add(wait)
	for {
		s.checkLocks()
		s.mu.Lock()
		left := time.Until(s.deadline)
		s.mu.Unlock()
		if d := time.Now().Add(s.beforeEarliestLock(wait)); d.Before(due) {
			due = d
		}
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-s.newLock: // a lock whose time may end before due
			continue
		case <-time.After(min(time.Until(due), max(left, 0))):
		}
		s.check()
		s.checkLocks()
		if s.Err() != nil {
			return
		}
		sent := time.Now()
		cut := s.untilEarliestLock(max(left, retry))
		if s.moving() {
			cut = max(s.untilEarliestLock(max(left, 0))/2, 10*time.Millisecond)
		}
		cctx, cancel := context.WithDeadline(ctx, sent.Add(cut))
		res, err := c.rpc.KeepAlive(cctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: c.id}))
		cancel()
		if err == nil {
			s.answered(c, sent, res.Msg)
			wait = every
			due = time.Now().Add(wait)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if s.failed(ctx, c, wrap(ctx, err)) || s.cur() != c {
			return // moved: the new lockd's loop runs
		}
		wait = retry
		due = time.Now().Add(wait)
	}
}

// watch follows the session's events: a lost lock loses its Lock, an ended
// session ends this one, and a broken stream ends it too (package doc: the
// client could no longer be told of a loss in time). watching is closed
// once the stream is open (or the session ended); nil after a move. With
// several lockds a broken stream moves the session instead (failover.go).
// It runs until c is given up.
func (s *Session) watch(c *conn, watching chan<- struct{}) {
	defer s.bg.Done()
	ctx := c.ctx
	opened := false
	defer func() {
		if !opened && watching != nil {
			close(watching)
		}
	}()
	stream, err := c.rpc.WatchSession(ctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: c.id}))
	if err != nil {
		s.watchEnded(c, err)
		return
	}
	defer stream.Close()
	for stream.Receive() {
		ev := stream.Msg()
		switch ev.GetKind() {
		case pb.SessionEvent_KIND_WATCHING:
			if !opened && watching != nil {
				close(watching)
			}
			opened = true
		case pb.SessionEvent_KIND_LOCK_LOST:
			for _, h := range ev.GetLockIds() {
				if l := s.findOrMark(c, h); l != nil {
					l.lose()
				}
			}
		case pb.SessionEvent_KIND_EXPIRED:
			s.endOn(c, fmt.Errorf("lockd client: session %s lapsed at lockd (%s): %w", c.id, ev.GetReason(), errors.Join(ErrSessionEnded, lockstep.ErrLost)))
			return
		case pb.SessionEvent_KIND_CLOSED:
			s.endOn(c, fmt.Errorf("lockd client: session %s closed at lockd (%s): %w", c.id, ev.GetReason(), errors.Join(ErrSessionEnded, lockstep.ErrLost)))
			return
		case pb.SessionEvent_KIND_DRAINING:
			// Without Endpoints the session stays until lockd closes it
			// (CLOSED, above), as at any shutdown.
			if s.moving() && s.drained(c, ev.GetReason()) {
				return
			}
		}
	}
	s.watchEnded(c, stream.Err())
}

func (s *Session) watchEnded(c *conn, err error) {
	if c.ctx.Err() != nil {
		return // Close, or a move gave c up
	}
	if err == nil {
		err = errors.New("the stream ended without a final event")
	}
	if s.moving() {
		s.move(c, fmt.Errorf("its watch stream broke: %w", err))
		return
	}
	s.end(fmt.Errorf("lockd client: session %s: its watch stream broke (%v): a loss could no longer be reported in time, so one is assumed: %w",
		c.id, err, errors.Join(ErrSessionEnded, lockstep.ErrLost)))
}

// findOrMark returns the Lock of handle at c, or notes a loss that may
// belong to a call in flight (lostEarly).
func (s *Session) findOrMark(c *conn, handle string) *Lock {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != c {
		return nil
	}
	l, ok := s.locks[handle]
	if !ok && s.calls > 0 {
		s.lostEarly[handle] = true
	}
	return l
}

// bearerInterceptor sets the Authorization header of every call.
type bearerInterceptor string

func (b bearerInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		req.Header().Set("Authorization", string(b))
		return next(ctx, req)
	}
}

func (b bearerInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		conn.RequestHeader().Set("Authorization", string(b))
		return conn
	}
}

func (b bearerInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
