package lockd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Lock waits until every item of the request is held by the session, its
// deadline passes, the client cancels, or the session ends. A call that
// does not succeed leaves nothing held.
func (s *Server) Lock(ctx context.Context, req *connect.Request[pb.LockRequest]) (*connect.Response[pb.LockResponse], error) {
	return s.lock(ctx, "Lock", req.Msg, false)
}

// TryLock is Lock failing at once with FailedPrecondition (LOCKED) instead
// of waiting.
func (s *Server) TryLock(ctx context.Context, req *connect.Request[pb.LockRequest]) (*connect.Response[pb.LockResponse], error) {
	return s.lock(ctx, "TryLock", req.Msg, true)
}

// lock authenticates, checks the session and the grants, and calls the
// library: reentrant per session, bounded by MaxWait and by the session's
// life.
func (s *Server) lock(ctx context.Context, rpc string, req *pb.LockRequest, try bool) (*connect.Response[pb.LockResponse], error) {
	pr, err := s.authenticate(ctx, rpc)
	if err != nil {
		return nil, wire(err)
	}
	ss, err := s.session(ctx, rpc, pr, req.GetSessionId())
	if err != nil {
		return nil, wire(err)
	}
	if e := ss.refuseDraining(); e != nil {
		return nil, wire(e)
	}
	reqs, err := requests(req.GetItems())
	if err != nil {
		return nil, wire(err)
	}
	if len(req.GetComment()) > maxComment {
		return nil, wire(invalid("comment is %d bytes: at most %d (it names the unit of work in deadlock cycles)", len(req.GetComment()), maxComment))
	}
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		ids[i] = r.ID
	}
	if err := s.checkPrefixes(ctx, rpc, pr, ids); err != nil {
		return nil, wire(err)
	}
	id, ok := ss.begin()
	if !ok {
		return nil, wire(ss.endedError())
	}
	defer ss.done()
	wctx, cancel := s.bound(ctx, ss)
	defer cancel(nil)
	// The identity is the unit of work: reentrancy, UnlockAll, deadlock holdings.
	l, err := acquire(wctx, id.taker(s.locker, req.GetComment()), reqs, try)
	if err != nil {
		if context.Cause(wctx) == errSessionEnded {
			return nil, wire(ss.endedError())
		}
		return nil, wire(s.lockError(pr, ss, err))
	}
	if ctx.Err() != nil { // granted as the client gave up: it will never learn the handle
		_ = l.Unlock(context.WithoutCancel(ctx))
		return nil, wire(mapError(ctx.Err(), ss.id, ""))
	}
	h, ok := id.add(ss, l, req.GetItems(), s.log)
	if !ok {
		_ = l.Unlock(context.WithoutCancel(ctx))
		return nil, wire(ss.endedError())
	}
	return connect.NewResponse(&pb.LockResponse{Lock: h.proto()}), nil
}

// maxComment bounds LockRequest.comment: it is stored in every wait record
// of a deadlock-detecting fleet.
const maxComment = 256

// bound returns ctx bounded by MaxWait and cancelled, with cause
// errSessionEnded, when the session ends.
func (s *Server) bound(ctx context.Context, ss *session) (context.Context, context.CancelCauseFunc) {
	wctx, cancel := context.WithCancelCause(ctx)
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > s.cfg.MaxWait {
		var stopTimer context.CancelFunc
		wctx, stopTimer = context.WithTimeout(wctx, s.cfg.MaxWait)
		inner := cancel
		cancel = func(err error) { stopTimer(); inner(err) }
	}
	stop := context.AfterFunc(ss.ctx, func() { cancel(errSessionEnded) })
	outer := cancel
	return wctx, func(err error) { stop(); outer(err) }
}

// acquire calls the library through t (the identity's unit of work): Lock
// or TryLock for one exclusive id without flags, LockGroup or TryLockGroup
// otherwise.
func acquire(ctx context.Context, t takers, reqs []lockstep.Request, try bool) (lockstep.Lock, error) {
	one := len(reqs) == 1 && reqs[0].Access == lockstep.Exclusive && reqs[0].Flags == 0
	switch {
	case one && try:
		return t.TryLock(ctx, reqs[0].ID)
	case one:
		return t.Lock(ctx, reqs[0].ID)
	case try:
		return t.TryLockGroup(ctx, reqs...)
	}
	return t.LockGroup(ctx, reqs...)
}

// requests converts and checks the items: at least one, valid ids and
// accesses; each item's flags are passed on.
func requests(items []*pb.LockItem) ([]lockstep.Request, error) {
	if len(items) == 0 {
		return nil, invalid("items is empty: name at least one lock id, e.g. {\"id\": \"invoice/42\"}")
	}
	reqs := make([]lockstep.Request, len(items))
	for i, it := range items {
		if err := lockstep.ValidateID(it.GetId()); err != nil {
			e := mapError(err, "", it.GetId())
			e.msg = fmt.Sprintf("items[%d]: ", i) + e.msg
			return nil, e
		}
		a := lockstep.Access(it.GetAccess())
		if it.GetAccess() < 0 || !a.Valid() {
			e := mapError(lockstep.ErrInvalidAccess, "", it.GetId())
			e.msg = fmt.Sprintf("items[%d]: access %v is not one of ACCESS_EXCLUSIVE, ACCESS_SHARED, ACCESS_INTENT_SHARED, ACCESS_INTENT_EXCLUSIVE, ACCESS_SHARED_INTENT_EXCLUSIVE", i, it.GetAccess())
			return nil, e
		}
		reqs[i] = lockstep.Request{ID: it.GetId(), Access: a, Flags: flagsOf(it)}
	}
	return reqs, nil
}

// flagsOf returns the lockstep.Flags an item declares; the library refuses
// those that disagree with its id (INVALID_ID).
func flagsOf(it *pb.LockItem) lockstep.Flags {
	var f lockstep.Flags
	if it.GetFlat() {
		f |= lockstep.Flat
	}
	if it.GetNoMask() {
		f |= lockstep.NoMask
	}
	return f
}

// Unlock releases one of the locks of the session's identity. A lease lost before is
// reported as Aborted (LOST), the lock released all the same; a store
// failure leaves the lock held by the session, to retry.
func (s *Server) Unlock(ctx context.Context, req *connect.Request[pb.UnlockRequest]) (*connect.Response[pb.UnlockResponse], error) {
	pr, err := s.authenticate(ctx, "Unlock")
	if err != nil {
		return nil, wire(err)
	}
	ss, err := s.session(ctx, "Unlock", pr, req.Msg.GetSessionId())
	if err != nil {
		return nil, wire(err)
	}
	id := ss.identity()
	h, ok := id.get(req.Msg.GetLockId())
	if !ok {
		return nil, wire(&rpcError{code: connect.CodeNotFound, reason: pb.LockError_REASON_UNKNOWN_LOCK, session: ss.id, id: req.Msg.GetLockId(),
			msg: "session " + ss.id + " holds no lock " + quote(req.Msg.GetLockId()) + ": pass the lock_id a Lock of this session returned (DescribeSession lists them)"})
	}
	err = h.lock.Unlock(ctx)
	if err != nil && !errors.Is(err, lockstep.ErrLost) {
		return nil, wire(mapError(err, ss.id, h.lock.ID()))
	}
	id.remove(h)
	if err != nil {
		return nil, wire(mapError(err, ss.id, h.lock.ID()))
	}
	return connect.NewResponse(&pb.UnlockResponse{}), nil
}
