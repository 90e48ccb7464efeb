package client

import (
	"context"
	"errors"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Errors of this package beside the library's sentinels.
var (
	// ErrSessionEnded is wrapped by the calls of a Session that has ended:
	// closed, or lapsed (then the error wraps lockstep.ErrLost too).
	ErrSessionEnded = errors.New("lockd client: session ended")
	// ErrNotAllowed is wrapped by lockd's refusals of the caller: not
	// authenticated, or not granted the id or the session.
	ErrNotAllowed = errors.New("lockd client: not allowed")
	// ErrUnavailable is wrapped when lockd, or the store behind it, could
	// not serve the call: retry, on another lockd if this one is shutting
	// down.
	ErrUnavailable = errors.New("lockd client: unavailable")
)

// Error is an error lockd returned: its status code, its reason and
// message, and what the reason carries. It wraps the library's sentinel
// for the reason (errors.Is(err, lockstep.ErrLocked) and so on) and the
// connect error itself.
type Error struct {
	Code   connect.Code
	Reason pb.LockError_Reason
	// Message is lockd's message, which says what to do. A LOCKED message
	// also names the sessions of that lockd holding ID, when the caller's
	// principal may see them (its own sessions; every session for a
	// principal granted list_sessions, or in open mode).
	Message string
	// ID is the lock id the error is about, "" when none: for a Lock that
	// failed (LOCKED, DEADLINE, DEADLOCK, UPGRADE, a store error) the
	// member that stopped it, which is an id asked or an ancestor of one
	// whose intention lock met a holder; for NO_PREFIX the id not granted.
	ID string
	// LostLockIDs are the lock handles a SESSION_EXPIRED session lost.
	LostLockIDs []string
	// Deadlock is the cycle of a DEADLOCK error, starting with this call.
	Deadlock *lockstep.DeadlockError

	cause error
	is    []error
}

func (e *Error) Error() string { return "lockd: " + e.Message }

// Unwrap returns the sentinels the reason maps to, the deadlock error if
// any, and the connect error.
func (e *Error) Unwrap() []error {
	out := append([]error(nil), e.is...)
	if e.Deadlock != nil {
		out = append(out, e.Deadlock)
	}
	return append(out, e.cause)
}

// sentinels maps lockd's reasons to the errors a library caller checks.
var sentinels = map[pb.LockError_Reason][]error{
	pb.LockError_REASON_LOCKED:            {lockstep.ErrLocked},
	pb.LockError_REASON_LOST:              {lockstep.ErrLost},
	pb.LockError_REASON_SESSION_EXPIRED:   {ErrSessionEnded, lockstep.ErrLost},
	pb.LockError_REASON_UPGRADE:           {lockstep.ErrUpgrade},
	pb.LockError_REASON_INCOMPATIBLE_MODE: {lockstep.ErrIncompatibleMode},
	pb.LockError_REASON_INVALID_ID:        {lockstep.ErrInvalidID},
	pb.LockError_REASON_INVALID_ACCESS:    {lockstep.ErrInvalidAccess},
	pb.LockError_REASON_NO_PREFIX:         {ErrNotAllowed},
	pb.LockError_REASON_NOT_YOUR_SESSION:  {ErrNotAllowed},
	pb.LockError_REASON_UNAUTHENTICATED:   {ErrNotAllowed},
	pb.LockError_REASON_STORE_UNAVAILABLE: {ErrUnavailable},
	pb.LockError_REASON_STORE_REFUSED:     {lockstep.ErrRefused},
	pb.LockError_REASON_SHUTTING_DOWN:     {ErrUnavailable},
	pb.LockError_REASON_UNKNOWN_SESSION:   {ErrSessionEnded},
	pb.LockError_REASON_DEADLINE:          {context.DeadlineExceeded},
	pb.LockError_REASON_DEADLOCK:          {lockstep.ErrDeadlock},
	pb.LockError_REASON_INVALID_TOKEN:     {lockstep.ErrShareToken},
	pb.LockError_REASON_OTHER_LOCKD:       {lockstep.ErrShareToken},
	pb.LockError_REASON_UNKNOWN_TOKEN:     {lockstep.ErrReleased},
	pb.LockError_REASON_NOT_YOUR_TOKEN:    {ErrNotAllowed},
}

// wrap turns a call's error into an *Error when lockd answered with a
// LockError, and leaves transport errors and ctx's as they are (a
// cancelled or expired ctx keeps errors.Is(err, ctx.Err())).
func wrap(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return errors.Join(ctx.Err(), err)
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return err
	}
	var le *pb.LockError
	for _, d := range ce.Details() {
		if v, derr := d.Value(); derr == nil {
			if x, ok := v.(*pb.LockError); ok {
				le = x
				break
			}
		}
	}
	if le == nil {
		if ce.Code() == connect.CodeUnavailable {
			return errors.Join(ErrUnavailable, err)
		}
		return err
	}
	e := &Error{Code: ce.Code(), Reason: le.GetReason(), Message: ce.Message(), ID: le.GetId(), LostLockIDs: le.GetLostLockIds(),
		cause: err, is: sentinels[le.GetReason()]}
	if le.GetReason() == pb.LockError_REASON_DEADLOCK {
		e.Deadlock = &lockstep.DeadlockError{Cycle: cycle(le.GetCycle())}
	}
	return e
}

func cycle(ms []*pb.DeadlockMember) []lockstep.DeadlockMember {
	out := make([]lockstep.DeadlockMember, len(ms))
	for i, m := range ms {
		out[i] = lockstep.DeadlockMember{Process: m.GetProcess(),
			Waits:  lockstep.Request{ID: m.GetWaits().GetId(), Access: lockstep.Access(m.GetWaits().GetAccess())},
			HeldBy: m.GetHeldBy(), HeldIn: lockstep.Access(m.GetHeldIn()), Comment: m.GetComment()}
	}
	return out
}
