package lockd

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
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

// session is one client's session: its TTL, the locks it holds, and who is
// watching it. Safe for concurrent use; mu guards the fields below it.
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
	reason   string             // why it ended
	locks    map[string]*handle // by handle id
	next     uint64             // handle ids issued
	lost     []string           // handles lost: at expiry, or their lease
	watchers map[chan *pb.SessionEvent]struct{}

	watch sync.WaitGroup // the lost-lease watchers of its handles
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
	return &pb.HeldLock{LockId: h.id, Items: h.items, Token: h.token, Reentrant: h.reentrant}
}

// touch pushes the deadline one TTL ahead; false if the session has ended.
func (ss *session) touch() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return false
	}
	ss.deadline = ss.clock.Elapsed() + ss.ttl.Microseconds()
	return true
}

// remaining is the time left before the session lapses.
func (ss *session) remaining() time.Duration {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return time.Duration(ss.deadline-ss.clock.Elapsed()) * time.Microsecond
}

// add records a lock Lock returned and starts watching its lease; it fails
// when the session ended while the lock was being taken (the caller then
// releases it).
func (ss *session) add(l lockstep.Lock, items []*pb.LockItem, log *slog.Logger) (*handle, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return nil, false
	}
	ss.next++
	h := &handle{id: "l-" + strconv.FormatUint(ss.next, 10), items: items, lock: l, stop: make(chan struct{})}
	if f, ok := l.(lockstep.Fenced); ok {
		h.token = f.Token()
	}
	for _, o := range ss.locks {
		if o.lock.Owner() == l.Owner() {
			h.reentrant = true // granted by reentrancy: the same acquisition counted once more
		}
	}
	ss.locks[h.id] = h
	// Added while live, under mu: finish, which precedes every Wait, cannot
	// have run yet.
	ss.watch.Add(1)
	go ss.watchLease(h, log)
	return h, true
}

// watchLease reports the handle's loss, if its lease is lost before the
// session lets go of it.
func (ss *session) watchLease(h *handle, log *slog.Logger) {
	defer ss.watch.Done()
	select {
	case <-h.lock.Lost():
		if ss.lose(h) {
			log.Warn("lockd: lock lost", "session", ss.id, "principal", ss.principal.Name, "lock", h.id, "id", h.lock.ID())
		}
	case <-h.stop:
	}
}

// get returns the handle id names.
func (ss *session) get(id string) (*handle, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	h, ok := ss.locks[id]
	return h, ok
}

// remove forgets a released handle.
func (ss *session) remove(h *handle) {
	ss.mu.Lock()
	delete(ss.locks, h.id)
	ss.mu.Unlock()
	h.release()
}

// lose records that a handle's lease was lost and tells the watchers; false
// if the handle was already let go.
func (ss *session) lose(h *handle) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if _, ok := ss.locks[h.id]; !ok || ss.state != live {
		return false
	}
	ss.lost = append(ss.lost, h.id)
	ss.emit(&pb.SessionEvent{Kind: pb.SessionEvent_KIND_LOCK_LOST, SessionId: ss.id, LockIds: []string{h.id},
		Reason: "the lock's lease was lost: stop the work it guards"})
	return true
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
	return ch, true
}

func (ss *session) unsubscribe(ch chan *pb.SessionEvent) {
	ss.mu.Lock()
	delete(ss.watchers, ch)
	ss.mu.Unlock()
}

// finish marks the session ended and returns the handles it held; false if
// it had ended already.
func (ss *session) finish(state sessionState, reason string) ([]*handle, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != live {
		return nil, false
	}
	ss.state, ss.reason = state, reason
	hs := make([]*handle, 0, len(ss.locks))
	for _, h := range ss.locks {
		hs = append(hs, h)
		if state == expired {
			ss.lost = append(ss.lost, h.id)
		}
	}
	ss.locks = map[string]*handle{}
	return hs, true
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
		e.msg = "session " + ss.id + " expired (" + ss.reason + "): its locks were released and are lost; stop the work they guarded, then open a new session"
	case ss.reason == reasonShutdown:
		e.code, e.reason = connect.CodeUnavailable, pb.LockError_REASON_SHUTTING_DOWN
		e.msg = "session " + ss.id + " was closed: " + ss.reason + "; open a new session on another lockd"
	default:
		e.code, e.reason = connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_SESSION
		e.msg = "session " + ss.id + " was closed by CloseSession; open a new session"
	}
	return e
}

// describe renders the session for DescribeSession.
func (ss *session) describe() *pb.DescribeSessionResponse {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	r := &pb.DescribeSessionResponse{SessionId: ss.id, Name: ss.name, Principal: ss.principal.Name, Ttl: durationpb.New(ss.ttl)}
	for _, h := range ss.locks {
		r.Locks = append(r.Locks, h.proto())
	}
	sortHeld(r.Locks)
	return r
}
