package lockd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// rpcError is an error on its way to the client: a status code and the
// LockError detail a client can act on.
type rpcError struct {
	code    connect.Code
	reason  pb.LockError_Reason
	msg     string
	id      string               // the lock id it is about
	session string               // the session it is about
	lost    []string             // lock handles the session lost
	hint    string               // what to do, when the message does not end with it
	cycle   []*pb.DeadlockMember // DEADLOCK: the cycle, this call's wait first
	cause   error                // the library's error, if any
}

func (e *rpcError) Error() string { return e.msg }

// Unwrap returns the library's error the rpcError maps, if any.
func (e *rpcError) Unwrap() error { return e.cause }

// connectError renders e as the Connect error the client receives.
func (e *rpcError) connectError() *connect.Error {
	ce := connect.NewError(e.code, errors.New(e.msg))
	d, err := connect.NewErrorDetail(&pb.LockError{Reason: e.reason, SessionId: e.session, Id: e.id, LostLockIds: e.lost, Hint: e.hint, Cycle: e.cycle})
	if err == nil { // marshalling a well-formed message does not fail
		ce.AddDetail(d)
	}
	return ce
}

// wire converts any error a handler returns into a Connect error; a bare
// library error is mapped first (mapError).
func wire(err error) error {
	if err == nil {
		return nil
	}
	var re *rpcError
	if !errors.As(err, &re) {
		re = mapError(err, "", "")
	}
	return re.connectError()
}

// mapError maps an error of the library (or of ctx) to a status code and a
// reason:
//
//	ctx deadline                 DeadlineExceeded  DEADLINE
//	ctx cancelled by the client  Canceled
//	*DeadlockError               Aborted           DEADLOCK, with the cycle
//	ErrLocked                    FailedPrecondition LOCKED
//	ErrUpgrade                   FailedPrecondition UPGRADE
//	ErrIncompatibleMode          FailedPrecondition INCOMPATIBLE_MODE
//	ErrLost                      Aborted           LOST
//	ErrInvalidID / Access        InvalidArgument   INVALID_ID / INVALID_ACCESS
//	ErrRefused                   PermissionDenied  STORE_REFUSED
//	ErrClosed                    Unavailable       SHUTTING_DOWN
//	anything else (the store)    Unavailable       STORE_UNAVAILABLE
//
// Locked is FailedPrecondition, not Aborted, so that a client tells "someone
// else holds it, try later" from "you lost it, stop the work" by the code
// alone; Aborted is kept for loss and for the deadlock victim (retry the
// unit of work), as gRPC's Aborted is for an aborted transaction.
func mapError(err error, session, id string) *rpcError {
	e := &rpcError{msg: err.Error(), session: session, id: id, cause: err}
	var dl *lockstep.DeadlockError
	switch {
	case errors.As(err, &dl):
		e.code, e.reason, e.cycle = connect.CodeAborted, pb.LockError_REASON_DEADLOCK, cycleProto(dl.Cycle)
		e.hint = "this Lock was chosen to break a cycle of waits and released what it took: release what the unit of work holds (UnlockAll) and retry it, or take its ids in one group"
	case errors.Is(err, context.DeadlineExceeded):
		e.code, e.reason = connect.CodeDeadlineExceeded, pb.LockError_REASON_DEADLINE
		e.advise("the call's deadline passed while it waited; nothing is held (give Lock a longer deadline, or retry)")
	case errors.Is(err, context.Canceled):
		e.code = connect.CodeCanceled
	case errors.Is(err, lockstep.ErrLocked):
		e.code, e.reason = connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED
		e.advise("another session holds it or is ahead in line; nothing is held (retry later, or call Lock to wait)")
	case errors.Is(err, lockstep.ErrUpgrade):
		e.code, e.reason = connect.CodeFailedPrecondition, pb.LockError_REASON_UPGRADE
	case errors.Is(err, lockstep.ErrIncompatibleMode):
		e.code, e.reason = connect.CodeFailedPrecondition, pb.LockError_REASON_INCOMPATIBLE_MODE
	case errors.Is(err, lockstep.ErrLost):
		e.code, e.reason = connect.CodeAborted, pb.LockError_REASON_LOST
		e.advise("the lease was lost before this Unlock, so the work it guarded may not have been exclusive; the lock is released")
	case errors.Is(err, lockstep.ErrInvalidID):
		e.code, e.reason = connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ID
	case errors.Is(err, lockstep.ErrInvalidAccess):
		e.code, e.reason = connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ACCESS
	case errors.Is(err, lockstep.ErrRefused):
		e.code, e.reason = connect.CodePermissionDenied, pb.LockError_REASON_STORE_REFUSED
	case errors.Is(err, lockstep.ErrClosed):
		e.code, e.reason = connect.CodeUnavailable, pb.LockError_REASON_SHUTTING_DOWN
		e.advise("this lockd is shutting down; open a session on another")
	default:
		e.code, e.reason = connect.CodeUnavailable, pb.LockError_REASON_STORE_UNAVAILABLE
	}
	return e
}

// lockError maps the error of a Lock or TryLock as mapError does, except
// that a loss gets the advice for a Lock, not for an Unlock: the library
// fails a Lock with ErrLost when a member's lease lapsed during the call,
// or when the session's identity holds one of the ids through an earlier
// lock that was lost, which it must unlock before it can take the id again.
// id is the member that stopped it, if known; lost is the session's lost
// handles, sent as lost_lock_ids with a loss.
func lockError(err error, session, id string, lost []string) *rpcError {
	e := mapError(err, session, id)
	if e.reason == pb.LockError_REASON_LOST {
		e.msg, e.hint, e.lost = err.Error(), "", lost
		e.advise("a lease was lost, during this Lock or, for an earlier lock of the session on one of its ids, before it; " +
			"nothing is held by this call: Unlock the session's lost lock on the id if it has one (lost_lock_ids lists " +
			"the session's lost locks; WatchSession reported each as LOCK_LOST), then Lock again")
	}
	return e
}

// cycleProto renders a deadlock cycle for the LockError detail. A
// protobuf string must be UTF-8, or the whole detail fails to marshal: a
// comment the library kept byte for byte that is not UTF-8 (a Go process's
// Unit comment) travels with each invalid byte replaced by U+FFFD, and so
// do the other strings, which are UTF-8 in practice.
func cycleProto(cycle []lockstep.DeadlockMember) []*pb.DeadlockMember {
	valid := func(s string) string {
		if utf8.ValidString(s) {
			return s
		}
		return string([]rune(s)) // each invalid byte becomes U+FFFD
	}
	out := make([]*pb.DeadlockMember, len(cycle))
	for i, m := range cycle {
		out[i] = &pb.DeadlockMember{Process: valid(m.Process), Waits: &pb.LockItem{Id: valid(m.Waits.ID), Access: pb.Access(m.Waits.Access)},
			HeldBy: valid(m.HeldBy), HeldIn: pb.Access(m.HeldIn), Comment: valid(m.Comment)}
	}
	return out
}

// advise appends what to do to the message, and keeps it as the hint.
func (e *rpcError) advise(hint string) {
	e.msg += ": " + hint
	e.hint = hint
}

// invalid is an InvalidArgument error for a malformed request.
func invalid(format string, args ...any) *rpcError {
	return &rpcError{code: connect.CodeInvalidArgument, reason: pb.LockError_REASON_INVALID_ARGUMENT, msg: fmt.Sprintf(format, args...)}
}

// unauthenticated is an Unauthenticated error.
func unauthenticated(format string, args ...any) *rpcError {
	return &rpcError{code: connect.CodeUnauthenticated, reason: pb.LockError_REASON_UNAUTHENTICATED, msg: fmt.Sprintf(format, args...)}
}

func quote(s string) string { return strconv.Quote(s) }

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return q
}
