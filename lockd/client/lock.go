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
	handle    string
	id        string
	token     int64
	reentrant bool

	lostOnce sync.Once
	lost     chan struct{}
	mu       sync.Mutex
	released bool

	// deadline is when the lock must be taken as lost unless a KeepAlive
	// answer gives it more time (valid.go); guarded by s.mu.
	deadline time.Time
}

var _ lockstep.Lock = (*Lock)(nil)

func newLock(s *Session, h *pb.HeldLock, reqs []lockstep.Request) *Lock {
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		ids[i] = r.ID
	}
	return &Lock{s: s, handle: h.GetLockId(), id: strings.Join(ids, ","), token: h.GetToken(), reentrant: h.GetReentrant(),
		lost: make(chan struct{})}
}

// ID is the id locked, or a group's ids joined by commas in the order given.
func (l *Lock) ID() string { return l.id }

// Owner is the session and the lock's handle at lockd ("<session>/<handle>"):
// lockd does not expose the owner id it wrote in the store.
func (l *Lock) Owner() string { return l.s.id + "/" + l.handle }

// Handle is the lock's handle at lockd (HeldLock.lock_id).
func (l *Lock) Handle() string { return l.handle }

// Mode is lockstep.ModeUnknown: lockd takes each lock in the mode the
// fleet's phase allows and does not say which.
func (l *Lock) Mode() lockstep.Mode { return lockstep.ModeUnknown }

// Token is the lock's fencing token, 0 when lockd runs without fencing or
// the lock has several members.
func (l *Lock) Token() int64 { return l.token }

// Reentrant says whether lockd granted this Lock by reentrancy and it took
// nothing: the session's identity already held every member (the ids, and
// the intention locks on their ancestors) in an access covering it, so it
// only counts. The first Lock of "rx/2" beside a held "rx/1" shares the
// intention lock on "rx" but takes "rx/2": not reentrant.
func (l *Lock) Reentrant() bool { return l.reentrant }

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
func (l *Lock) Unlock(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	if err := l.s.Err(); err != nil {
		l.released = true
		l.lose()
		return fmt.Errorf("lockd client: lock %s (%s): %w", l.handle, l.id, err)
	}
	_, err := l.s.rpc.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: l.s.id, LockId: l.handle}))
	if err != nil {
		err = wrap(ctx, err)
		l.s.endIfExpired(err)
		if !lostOrGone(err) {
			return err // to retry
		}
	}
	l.released = true
	l.s.forget(l.handle)
	l.lose()
	return err
}

// lostOrGone says whether an Unlock's error leaves nothing to retry: the
// lease was lost (lockd released the lock all the same), the session ended,
// or lockd no longer knows the handle.
func lostOrGone(err error) bool {
	var e *Error
	return errors.Is(err, lockstep.ErrLost) || errors.Is(err, ErrSessionEnded) ||
		errors.As(err, &e) && e.Reason == pb.LockError_REASON_UNKNOWN_LOCK
}
