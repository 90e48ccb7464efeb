package lockd

import (
	"errors"
	"sort"
	"time"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// pendingWait is one Lock call of a session in flight: what it asks, since
// when, and its comment. Waiters of one lockd wait in its Locker's own
// in-process line before any of them reaches the store's queue, so the web
// view shows them from here, beside the store's line of other processes.
// Recording one is a map insert under the session's mutex the call takes
// anyway (limits.go): no store request.
type pendingWait struct {
	items   []*pb.LockItem
	comment string
	since   time.Time
}

func newPendingWait(m *pb.LockRequest) *pendingWait {
	return &pendingWait{items: m.GetItems(), comment: m.GetComment(), since: time.Now()}
}

// localWait is a pendingWait with its session, for the view.
type localWait struct {
	session, principal string
	pendingWait
}

// localWaits lists the Lock calls in flight on the Server's sessions,
// oldest first.
func (s *Server) localWaits() []localWait {
	var out []localWait
	for _, ss := range s.liveSessions() {
		ss.mu.Lock()
		for w := range ss.pending {
			out = append(out, localWait{session: ss.id, principal: ss.principal.Name, pendingWait: *w})
		}
		ss.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].since.Before(out[j].since) })
	return out
}

// noteDeadlock tells the view's Recorder, if there is one, of a Lock's
// answer that failed DEADLOCK, with its cycle as the caller was told it.
func (s *Server) noteDeadlock(err error) {
	rec := s.viewRecorder.Load()
	var ce *connect.Error
	if rec == nil || !errors.As(err, &ce) {
		return
	}
	for _, d := range ce.Details() {
		v, derr := d.Value()
		le, ok := v.(*pb.LockError)
		if derr != nil || !ok || le.Reason != pb.LockError_REASON_DEADLOCK {
			continue
		}
		cycle := make([]lockstep.DeadlockMember, len(le.Cycle))
		for i, m := range le.Cycle {
			cycle[i] = lockstep.DeadlockMember{Process: m.Process, Waits: lockstep.Request{ID: m.GetWaits().GetId(), Access: lockstep.Access(m.GetWaits().GetAccess())},
				HeldBy: m.HeldBy, HeldIn: lockstep.Access(m.HeldIn), Comment: m.Comment}
		}
		rec.Deadlock(cycle)
	}
}
