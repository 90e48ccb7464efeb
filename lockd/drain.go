package lockd

import (
	"context"
	"time"

	"connectrpc.com/connect"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Draining: a lockd that shuts down gives the clients that can move their
// sessions (docs/algorithms.md §8.8, "Draining") the time to do it before
// it releases anything. A session can move when its identity handed out a
// peer token (GetToken on a lockd with a PeerKey): its client holds what
// another lockd of the cluster needs to adopt its locks. Such a session
// is told DRAINING on its watch stream and takes no new Lock from then on
// (SHUTTING_DOWN), while its keep-alives, unlocks and CloseSession are
// served as before and its locks stay held and renewed here. Its client
// opens a session on another lockd, adopts the peer token there, and
// closes the session here: the identity's locks are shared with the new
// holder by then, so the close leaves them to it (§8.7, "Leaving")
// instead of releasing them. Every other session, and a movable one still
// here when Options.Drain (or Close's ctx) runs out, ends as at any
// shutdown: CLOSED, its locks released.

const drainingReason = "lockd is shutting down: move the session to another lockd of the cluster (SetToken with the peer token on a session opened there), then close it here"

// drain tells the movable sessions of all that the server drains, ends
// the others, waits until each movable one ended or the drain ran out, and
// returns the sessions Close must still end (endSession does nothing for
// one that ended).
func (s *Server) drain(ctx context.Context, all []*session) []*session {
	if k := s.cfg.TestingKnobs; k != nil && k.EndDrainedAtOnce {
		return all
	}
	var movable, rest []*session
	for _, ss := range all {
		if ss.startDraining() {
			movable = append(movable, ss)
		} else {
			rest = append(rest, ss)
		}
	}
	if len(movable) == 0 {
		return rest
	}
	s.log.Info("lockd: draining the sessions that can move to another lockd", "sessions", len(movable), "within", s.cfg.Drain)
	dctx, cancel := context.WithTimeout(ctx, s.cfg.Drain)
	defer cancel()
	// The sessions that cannot move end now: their clients need not wait
	// for the others' drain to learn of it.
	for _, ss := range rest {
		s.endSession(ctx, ss, closed, reasonShutdown)
	}
	start := time.Now()
	left := 0
	for _, ss := range movable {
		select {
		case <-ss.released:
		case <-dctx.Done():
			left++
		}
	}
	s.log.Info("lockd: drain over", "moved", len(movable)-left, "left", left, "took", time.Since(start))
	return movable
}

// startDraining marks the session drained and tells its watchers, if its
// identity can move; false (nothing changed) if it cannot or it ended.
func (ss *session) startDraining() bool {
	ss.mu.Lock()
	id := ss.ident
	ss.mu.Unlock()
	id.mu.Lock()
	movable := id.movable
	id.mu.Unlock()
	if !movable {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return false
	}
	ss.draining = true
	ss.emit(ss.drainingEvent())
	return true
}

// drainingEvent is the event that tells a watcher to move; ss.mu is held.
func (ss *session) drainingEvent() *pb.SessionEvent {
	return &pb.SessionEvent{Kind: pb.SessionEvent_KIND_DRAINING, SessionId: ss.id, Reason: drainingReason}
}

// refuseDraining is the error of a Lock on a drained session: its client
// moves it and calls again at the other lockd.
func (ss *session) refuseDraining() *rpcError {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.draining {
		return nil
	}
	return &rpcError{code: connect.CodeUnavailable, reason: pb.LockError_REASON_SHUTTING_DOWN, session: ss.id,
		msg: "session " + ss.id + " takes no new lock: " + drainingReason}
}
