package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Lock is a lock a Session holds: a lockstep.Lock, and lockstep.Fenced
// through Token when lockd runs with fencing.
type Lock struct {
	s         *Session
	id        string
	items     []*pb.LockItem // as Lock asked for them: a move matches them (failover.go)
	token     int64
	reentrant bool

	lostOnce sync.Once
	lost     chan struct{}
	mu       sync.Mutex
	released bool

	// deadline is when the lock must be taken as lost unless a KeepAlive
	// answer gives it more time (valid.go); guarded by s.mu.
	deadline time.Time
	// handle is the lock's handle at the session's lockd; a move changes
	// it, and empties it when the lock did not move (failover.go). Guarded
	// by s.mu.
	handle string
}

var _ lockstep.Lock = (*Lock)(nil)

func newLock(s *Session, h *pb.HeldLock, items []*pb.LockItem) *Lock {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.GetId()
	}
	return &Lock{s: s, handle: h.GetLockId(), id: strings.Join(ids, ","), items: items, token: h.GetToken(), reentrant: h.GetReentrant(),
		lost: make(chan struct{})}
}

// ValidUntil is the lock's own deadline: the instant until which, by what
// lockd said (valid_for, counted from the send of the call that carried
// it; package doc, "When a lock counts as lost"), the lock is certain to
// stay valid. Lost closes then unless a KeepAlive answer, or a move's
// adoption, gives the lock more time first. After a loss it says whether
// the lock's time ran out (the loss came at it) or the lock was lost with
// time still ahead (lockd said so, the session ended, or a move did not
// carry it).
func (l *Lock) ValidUntil() time.Time {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	return l.deadline
}

// ID is the id locked, or a group's ids joined by commas in the order given.
func (l *Lock) ID() string { return l.id }

// Owner is the session and the lock's handle at lockd ("<session>/<handle>"):
// lockd does not expose the owner id it wrote in the store. A move to
// another lockd changes both.
func (l *Lock) Owner() string {
	c, h := l.at()
	return c.id + "/" + h
}

// Handle is the lock's handle at the lockd the session uses now
// (HeldLock.lock_id); empty once a move left the lock behind as lost.
func (l *Lock) Handle() string {
	_, h := l.at()
	return h
}

// at returns the session's lockd and the lock's handle there, together.
func (l *Lock) at() (*conn, string) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	return l.s.c, l.handle
}

// Mode is lockstep.ModeUnknown: lockd takes each lock in the mode the
// fleet's phase allows and does not say which.
func (l *Lock) Mode() lockstep.Mode { return lockstep.ModeUnknown }

// Token is the lock's fencing token, 0 when lockd runs without fencing or
// the lock has several members.
func (l *Lock) Token() int64 { return l.token }

// Reentrant says whether lockd granted this Lock by reentrancy and it took
// nothing (lockstep.Reentrant, lockd's HeldLock.reentrant): the session's identity already held every member (the ids, and
// the intention locks on their ancestors) in an access covering it, so it
// only counts. The first Lock of "rx/2" beside a held "rx/1" shares the
// intention lock on "rx" but takes "rx/2": not reentrant.
func (l *Lock) Reentrant() bool { return l.reentrant }

var _ lockstep.Reentrant = (*Lock)(nil)

// Lost is closed when the lock must be taken as lost (package doc). It
// applies the session's and the lock's own deadlines itself each time it
// is called.
func (l *Lock) Lost() <-chan struct{} {
	l.s.check()
	l.s.checkLocks()
	return l.lost
}

func (l *Lock) lose() { l.lostOnce.Do(func() { close(l.lost) }) }

func (l *Lock) markReleased() {
	l.mu.Lock()
	l.released = true
	l.mu.Unlock()
	l.lose()
}

// Unlock releases the lock at lockd. Once it has, later calls return nil.
// If the lease had been lost, the error wraps lockstep.ErrLost (the lock
// is released all the same); if the session has ended, it wraps
// ErrSessionEnded and lockstep.ErrLost, lockd having released the lock.
// If the lockd fails under it and the session moves, Unlock goes to the
// new lockd; a lock the move left behind (lost) is released by the old
// lockd when the old session lapses, and Unlock returns lockstep.ErrLost.
// A lock the move carried is released at the new lockd even when the old
// one, answering late, says its session ended: Unlock then returns nil,
// the lock having been held throughout.
func (l *Lock) Unlock(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	for {
		if err := l.s.Err(); err != nil {
			l.released = true
			l.lose()
			return fmt.Errorf("lockd client: lock %s: %w", l.id, err)
		}
		c, h := l.at()
		if h == "" {
			l.released = true
			return fmt.Errorf("lockd client: lock %s was left behind by a move to another lockd: %w", l.id, lockstep.ErrLost)
		}
		_, err := c.rpc.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: c.id, LockId: h}))
		if err != nil {
			err = wrap(ctx, err)
			if l.s.failed(ctx, c, err) {
				continue // the session moved: unlock there
			}
			if !lostOrGone(err) {
				return err // to retry
			}
		}
		l.released = true
		l.s.forget(c, h)
		if c2, h2 := l.at(); c2 != c && h2 != "" {
			// Released (or refused as lost, its session ended) at the old
			// lockd while a move carried the lock to c2: released there,
			// the lock was not lost — the move kept it, held throughout.
			if _, err2 := c2.rpc.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: c2.id, LockId: h2})); err2 == nil {
				l.s.forget(c2, h2)
				err = nil
			}
		}
		l.lose()
		l.s.refreshPeer()
		return err
	}
}

// lostOrGone says whether an Unlock's error leaves nothing to retry: the
// lease was lost (lockd released the lock all the same), the session ended,
// or lockd no longer knows the handle.
func lostOrGone(err error) bool {
	var e *Error
	return errors.Is(err, lockstep.ErrLost) || errors.Is(err, ErrSessionEnded) ||
		errors.As(err, &e) && e.Reason == pb.LockError_REASON_UNKNOWN_LOCK
}
