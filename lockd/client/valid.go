package client

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// A lock's own deadline (package doc, "When a lock counts as lost"). lockd
// says, in each answer that returns a lock and in each KeepAlive answer,
// how long each lock is certain to stay valid even if lockd renews nothing
// more (HeldLock.valid_for, KeepAliveResponse.valid_for; the library's
// lockstep.Expiring). The client counts it from the send of the call that
// carried it — lockd computed it later, as it answered — and never beyond
// the session's TTL from that send. So a lockd that stops renewing (paused,
// partitioned from Cassandra, its host gone) cannot leave a client holding
// a lock whose cells may already have expired: the client's deadline for
// the lock is no later than lockd's own lease deadline.

// answered applies a KeepAlive answer to a call sent at sent: the session's
// deadline moves to sent + TTL, and each lock the answer names to sent +
// its valid_for (at most the TTL). A lock it does not name gets no more
// time.
func (s *Session) answered(c *conn, sent time.Time, res *pb.KeepAliveResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != c {
		return // the session moved: c's handles are not its own any more
	}
	if d := sent.Add(s.ttl); d.After(s.deadline) {
		s.deadline = d
	}
	valid := res.GetValidFor()
	for h, l := range s.locks {
		if v, ok := valid[h]; ok || s.knobs.IgnoreValidFor {
			if d := sent.Add(s.lockTime(v)); d.After(l.deadline) {
				l.deadline = d
			}
		}
	}
}

// lockTime is the time an answer gives a lock: its valid_for, never past
// the session's TTL — or, with the planted defect IgnoreValidFor, the TTL.
func (s *Session) lockTime(v *durationpb.Duration) time.Duration {
	if s.knobs.IgnoreValidFor {
		return s.ttl
	}
	return min(s.ttl, v.AsDuration())
}

// earliestLock returns the time left of the earliest lock deadline still
// ahead; ok is false when no lock has time left to renew.
func (s *Session) earliestLock() (left time.Duration, ok bool) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.locks {
		if d := l.deadline.Sub(now); d > 0 && (!ok || d < left) {
			left, ok = d, true
		}
	}
	return left, ok
}

// untilEarliestLock returns d, or less: the time left of the earliest lock
// deadline still ahead. A KeepAlive call is cut at it, so that a lockd
// that stops answering cannot hold the loop past a lock's deadline.
func (s *Session) untilEarliestLock(d time.Duration) time.Duration {
	if left, ok := s.earliestLock(); ok {
		return min(d, left)
	}
	return d
}

// beforeEarliestLock returns wait, or less: half the time the earliest
// lock deadline still has, so that a KeepAlive renews it well before it
// ends (at least 10ms; wait when no lock has time left to renew).
func (s *Session) beforeEarliestLock(wait time.Duration) time.Duration {
	if left, ok := s.earliestLock(); ok {
		return min(wait, max(left/2, 10*time.Millisecond))
	}
	return wait
}

// added tells the keep-alive loop that a lock was added, so that it times
// its next call by that lock's deadline too.
func (s *Session) added() {
	select {
	case s.newLock <- struct{}{}:
	default:
	}
}

// checkLocks loses every lock whose own deadline has passed.
func (s *Session) checkLocks() {
	now := time.Now()
	var past []*Lock
	s.mu.Lock()
	for _, l := range s.locks {
		if now.After(l.deadline) {
			past = append(past, l)
		}
	}
	s.mu.Unlock()
	for _, l := range past {
		l.lose()
	}
}

// grantedLate gives l, not yet in s.locks, the time one KeepAlive sent now
// says it has left: its deadline counted from the Lock call's send is
// close when the call waited long. If the KeepAlive fails, l keeps that
// deadline.
func (s *Session) grantedLate(ctx context.Context, c *conn, l *Lock) {
	sent := time.Now()
	res, err := c.rpc.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: c.id}))
	if err != nil {
		s.endIfExpired(c, wrap(ctx, err))
		return
	}
	if v, ok := res.Msg.GetValidFor()[l.handle]; ok {
		if d := sent.Add(s.lockTime(v)); d.After(l.deadline) {
			l.deadline = d
		}
	}
	s.answered(c, sent, res.Msg)
}
