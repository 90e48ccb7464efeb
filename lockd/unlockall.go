package lockd

import (
	"context"
	"errors"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// UnlockAll releases every lock the session's identity holds (seed 003's
// unlockAll: the identifier's locks, whichever of its sessions took them):
// the library's UnlockAll for the identity, which is the reentrancy holder
// of all its acquisitions, then each handle's Unlock, which returns nil for
// one UnlockAll released and retries one whose release failed. The session
// stays open. A handle whose lease was lost is released and listed in
// lost_lock_ids too; a store failure leaves the handles it could not
// release held, to retry.
func (s *Server) UnlockAll(ctx context.Context, req *connect.Request[pb.UnlockAllRequest]) (*connect.Response[pb.UnlockAllResponse], error) {
	pr, err := s.authenticate(ctx, "UnlockAll")
	if err != nil {
		return nil, wire(err)
	}
	ss, err := s.session(ctx, "UnlockAll", pr, req.Msg.GetSessionId())
	if err != nil {
		return nil, wire(err)
	}
	id := ss.identity()
	if id.unit == nil {
		return nil, wire(&rpcError{code: connect.CodeUnimplemented, reason: pb.LockError_REASON_INVALID_ARGUMENT, session: ss.id,
			msg: "this lockd's Locker has no UnlockAll (it is no lockstep.UnitLocker): Unlock the session's locks one by one (DescribeSession lists them)"})
	}
	_ = id.unit.UnlockAll(ctx) // its errors are met again, per handle, below
	res := &pb.UnlockAllResponse{}
	var failed error
	for _, h := range id.handles() {
		lost := false
		select {
		case <-h.lock.Lost():
			lost = true
		default:
		}
		err := h.lock.Unlock(ctx)
		if err != nil && !errors.Is(err, lockstep.ErrLost) {
			failed = errors.Join(failed, err)
			continue
		}
		id.remove(h)
		res.LockIds = append(res.LockIds, h.id)
		if lost || err != nil {
			res.LostLockIds = append(res.LostLockIds, h.id)
		}
	}
	if failed != nil {
		return nil, wire(mapError(failed, ss.id, ""))
	}
	return connect.NewResponse(res), nil
}
