package lockd

import (
	"context"
	"errors"
	"sync"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// sessionState is where a session is in its life.
type sessionState uint8

const (
	live    sessionState = iota
	expired              // no call named it within its TTL: its locks are lost
	closed               // CloseSession, or the server's shutdown
)

// errSessionEnded is the cause of the contexts of a session's calls when the
// session ends under them.
var errSessionEnded = errors.New("lockd: session ended")

// session is one client's session: its TTL, its identity (which holds its
// locks), and who is watching it. Safe for concurrent use; mu guards the fields below it.
type session struct {
	id, name  string
	principal *Principal
	ttl       time.Duration
	clock     lockstep.Clock

	ctx      context.Context // done when the session ends
	end      context.CancelFunc
	released chan struct{} // closed once its locks are released, after ctx is done

	mu       sync.Mutex
	deadline int64 // elapsed µs after which the session lapses
	state    sessionState
	reason   string                    // why it ended
	ident    *identity                 // whose locks it holds (changed by SetToken, under Server.idMu too)
	inflight int                       // Lock calls in flight
	waits    int                       // Lock (not TryLock) calls in flight, bounded by Limits.MaxWaitsPerSession
	pending  map[*pendingWait]struct{} // those Lock calls, for the web view (viewwaits.go)
	lost     []string                  // handles lost: at expiry, or their lease
	watchers map[chan *pb.SessionEvent]struct{}
	draining bool // the server drains it (drain.go): it takes no new Lock
}

// lostHandles returns the handles the session lost.
func (ss *session) lostHandles() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]string(nil), ss.lost...)
}

// handle is one lock a session holds, as Lock returned it.
type handle struct {
	id        string
	items     []*pb.LockItem
	lock      lockstep.Lock
	token     int64
	reentrant bool
	stop      chan struct{} // closed when the session lets go of the handle
	stopOnce  sync.Once
}

func (h *handle) release() { h.stopOnce.Do(func() { close(h.stop) }) }

func (h *handle) proto() *pb.HeldLock {
	return &pb.HeldLock{LockId: h.id, Items: h.items, Token: h.token, Reentrant: h.reentrant, ValidFor: durationpb.New(h.validFor())}
}

// touchResult is what touch did.
type touchResult uint8

const (
	touched touchResult = iota // the deadline moved one TTL ahead
	ended                      // the session had ended
	overdue                    // its deadline had passed, the expiry not yet run: it must not revive
)

// touch pushes the deadline one TTL ahead, unless the session has ended or
// its deadline has already passed: a call that arrives late (after a pause
// of lockd, or held back by a cut link) must not revive a session its
// client, counting from the send, already takes as lapsed.
func (ss *session) touch() touchResult {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return ended
	}
	now := ss.clock.Elapsed()
	if now >= ss.deadline {
		return overdue
	}
	ss.deadline = now + ss.ttl.Microseconds()
	return touched
}

// remaining is the time left before the session lapses.
func (ss *session) remaining() time.Duration {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return time.Duration(ss.deadline-ss.clock.Elapsed()) * time.Microsecond
}

// isLive reports whether the session has not ended.
func (ss *session) isLive() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state == live
}

// identity returns the session's identity now.
func (ss *session) identity() *identity {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.ident
}

// begin counts a Lock call of the session in flight and returns the
// identity it acquires for; false if the session has ended. SetToken is
// refused while a call is in flight, so the identity stays the session's
// until done.
func (ss *session) begin() (*identity, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return nil, false
	}
	ss.inflight++
	return ss.ident, true
}

// done ends what begin counted.
func (ss *session) done() {
	ss.mu.Lock()
	ss.inflight--
	ss.mu.Unlock()
}

// noteLost records that a lock of the session's identity lost its lease
// and tells the watchers; the identity's mu is held.
func (ss *session) noteLost(handleID string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return
	}
	ss.lost = append(ss.lost, handleID)
	ss.emit(&pb.SessionEvent{Kind: pb.SessionEvent_KIND_LOCK_LOST, SessionId: ss.id, LockIds: []string{handleID},
		Reason: "the lock's lease was lost: stop the work it guards"})
}

// emit sends ev to every watcher that has room; ss.mu is held. A watcher
// too slow to take it misses a LOCK_LOST event (DescribeSession still
// lists the lock); the final event never depends on this buffer.
func (ss *session) emit(ev *pb.SessionEvent) {
	for ch := range ss.watchers {
		select {
		case ch <- ev:
		default:
		}
	}
}

// subscribe registers a watcher; false if the session has ended.
func (ss *session) subscribe() (chan *pb.SessionEvent, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return nil, false
	}
	ch := make(chan *pb.SessionEvent, 16)
	ss.watchers[ch] = struct{}{}
	if ss.draining {
		ch <- ss.drainingEvent()
	}
	return ch, true
}

func (ss *session) unsubscribe(ch chan *pb.SessionEvent) {
	ss.mu.Lock()
	delete(ss.watchers, ch)
	ss.mu.Unlock()
}

// finish marks the session ended, and returns its identity; false if it
// had ended already. Server.idMu is held.
func (ss *session) finish(state sessionState, reason string) (*identity, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return nil, false
	}
	ss.state, ss.reason = state, reason
	return ss.ident, true
}

// finalEvent is the last message of a watch: how the session ended.
func (ss *session) finalEvent() *pb.SessionEvent {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	kind := pb.SessionEvent_KIND_CLOSED
	if ss.state == expired {
		kind = pb.SessionEvent_KIND_EXPIRED
	}
	return &pb.SessionEvent{Kind: kind, SessionId: ss.id, LockIds: append([]string(nil), ss.lost...), Reason: ss.reason}
}

// endedError is the error of a call naming a session that has ended.
func (ss *session) endedError() *rpcError {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	e := &rpcError{session: ss.id, lost: append([]string(nil), ss.lost...)}
	switch {
	case ss.state == expired:
		e.code, e.reason = connect.CodeAborted, pb.LockError_REASON_SESSION_EXPIRED
		e.msg = "session " + ss.id + " expired (" + ss.reason + "): the locks it held were released and are lost (lost_lock_ids; none if another session shares its identity and keeps them); stop the work they guarded, then open a new session"
	case ss.reason == reasonShutdown:
		e.code, e.reason = connect.CodeUnavailable, pb.LockError_REASON_SHUTTING_DOWN
		e.msg = "session " + ss.id + " was closed: " + ss.reason + "; open a new session on another lockd"
	default:
		e.code, e.reason = connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_SESSION
		e.msg = "session " + ss.id + " was closed by CloseSession; open a new session"
	}
	return e
}

// describe renders the session for DescribeSession: its identity's locks.
func (ss *session) describe() *pb.DescribeSessionResponse {
	ss.mu.Lock()
	r := &pb.DescribeSessionResponse{SessionId: ss.id, Name: ss.name, Principal: ss.principal.Name, Ttl: durationpb.New(ss.ttl)}
	id := ss.ident
	ss.mu.Unlock()
	var n int
	r.Locks, n = id.held()
	r.Identity, r.IdentitySessions = id.name, int32(n)
	return r
}
