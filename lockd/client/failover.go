package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// Fail-over (package doc, "Fail-over"; docs/algorithms.md §8.8). With
// Options.Endpoints the session keeps its identity's peer token, refreshed
// after every Lock, Unlock, UnlockAll and Adopt. When the lockd it uses
// fails — a call or keep-alive unanswered (Unavailable, DeadlineExceeded)
// or its watch stream broken — it moves: it opens a session on another
// lockd, adopts the peer token there (SetToken; lockd's adoptPeer, the
// library's Adopt), and gives each of its Locks the adopted handle with the
// same ids and fencing token. A Lock the token did not name, or whose own
// deadline passed before SetToken's answer came, is lost; a move that does
// not finish before the session's deadline ends the session, as a failed
// lockd did without fail-over.

// Move is one move of a session to another lockd, as Options.OnMove
// reports it.
type Move struct {
	// From is the lockd the session left; To the one it moved to ("" when
	// the move failed).
	From, To string
	// Began is when the session noticed From had failed and set out;
	// Ended when the move finished (To in use) or failed.
	Began, Ended time.Time
	// Kept counts the Locks the move kept (the same ids and fencing
	// tokens), Lost those it reported lost.
	Kept, Lost int
	// Err is why the move failed and the session ended; nil on success.
	Err error
}

// conn is one session on one lockd: the session uses one at a time.
type conn struct {
	url  string
	rpc  lockstepv1connect.LockServiceClient
	id   string
	ctx  context.Context // its background calls'; cancelled when given up
	stop context.CancelFunc
}

// cur returns the conn the session uses now.
func (s *Session) cur() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c
}

// moving says whether the session may move: it knows several lockds.
func (s *Session) moving() bool { return len(s.urls) > 1 }

// openOn opens a session on the lockd at url, with the session's TTL (0:
// lockd's default), and returns it, the send of the call and the TTL
// granted.
func (s *Session) openOn(ctx context.Context, url string) (*conn, time.Time, time.Duration, error) {
	rpc := s.dial(url)
	req := &pb.OpenSessionRequest{Name: s.name}
	if s.ttl > 0 {
		req.Ttl = durationpb.New(s.ttl)
	}
	sent := time.Now()
	res, err := rpc.OpenSession(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, sent, 0, err
	}
	cctx, stop := context.WithCancel(s.root)
	return &conn{url: url, rpc: rpc, id: res.Msg.GetSessionId(), ctx: cctx, stop: stop}, sent, res.Msg.GetTtl().AsDuration(), nil
}

// start runs c's keep-alive loop and watch; s.mu is not held.
func (s *Session) start(c *conn, watching chan<- struct{}) {
	s.bg.Add(2)
	go s.keepAlive(c)
	go s.watch(c, watching)
}

// closeOn closes c's session at its lockd, a session a move opened and
// does not keep. If its lockd does not answer, the session is noted as
// left there (closeLeft): it may hold the locks a SetToken adopted, and
// that lockd refuses to adopt them again until it is closed or lapses.
func (s *Session) closeOn(c *conn) {
	c.stop()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.root), max(s.ttl/3, time.Second))
	defer cancel()
	_, err := c.rpc.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: c.id}))
	if err != nil && !errors.Is(wrap(ctx, err), ErrSessionEnded) {
		s.mu.Lock()
		s.left[c.url] = c.id
		s.mu.Unlock()
	}
}

// firstPeerToken reads the identity's first peer token at Open.
func (s *Session) firstPeerToken(ctx context.Context) error {
	tok, err := readPeer(ctx, s.c)
	if err != nil {
		return err
	}
	s.peer, s.peerSeq, s.peerAt = tok, 1, 1
	return nil
}

// readPeer reads the peer token of the identity of c's session. A lockd
// without a peer key hands out tokens no other lockd accepts: a session
// there could never move on, so it is refused.
func readPeer(ctx context.Context, c *conn) (string, error) {
	res, err := c.rpc.GetToken(ctx, connect.NewRequest(&pb.GetTokenRequest{SessionId: c.id}))
	if err != nil {
		return "", wrap(ctx, err)
	}
	tok := res.Msg.GetToken()
	if !strings.HasPrefix(tok, "lkt2.") {
		return "", fmt.Errorf("lockd client: Endpoints given, but the lockd at %s has no peer key, so no other lockd could take the session's locks over: "+
			"start every lockd of the cluster with the same --peer-key-file, or leave Options.Endpoints empty: %w", c.url, errNoPeerKey)
	}
	return tok, nil
}

// refreshPeer reads the identity's peer token again. A token whose
// GetToken was sent after a Lock was answered names that lock, so the
// token of the latest send is kept. A failure keeps the older token: a
// lock it does not name is lost at a move, never claimed.
func (s *Session) refreshPeer() {
	if !s.moving() || s.knobs.AdoptStaleToken {
		return
	}
	s.mu.Lock()
	c := s.c
	s.peerSeq++
	seq := s.peerSeq
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.ctx, max(s.ttl/3, 10*time.Millisecond))
	res, err := c.rpc.GetToken(ctx, connect.NewRequest(&pb.GetTokenRequest{SessionId: c.id}))
	cancel()
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.c == c && seq > s.peerAt {
		s.peer, s.peerAt = res.Msg.GetToken(), seq
	}
	s.mu.Unlock()
}

// movable says whether err means the lockd could not answer: lockd's own
// Unavailable (shutting down, its store unreachable) or a transport error
// or timeout. A refusal lockd answered is not one.
func movable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Code == connect.CodeUnavailable
	}
	switch connect.CodeOf(err) { // Canceled: a connection reset under the call (the callers check their own ctx first)
	case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeUnknown, connect.CodeCanceled:
		return true
	}
	return false
}

// failed handles the error of a call a caller made at c with ctx: a
// session lockd ended ends; one whose lockd could not answer moves.
// It returns true when the session moved off c and lives: the caller may
// repeat the call at the new lockd.
func (s *Session) failed(ctx context.Context, c *conn, err error) bool {
	s.endIfExpired(c, err)
	if !s.moving() || ctx.Err() != nil || s.root.Err() != nil || !movable(err) {
		return false
	}
	s.move(c, err)
	return s.cur() != c && s.Err() == nil
}

// endOn ends the session with err if it still uses c.
func (s *Session) endOn(c *conn, err error) {
	if s.cur() == c {
		s.end(err)
	}
}

// move moves the session off old, which failed with cause, to another
// lockd (the next in Open's order after old's, old's own last), before
// the session's deadline; otherwise the session ends and its locks are
// lost. Moves are one at a time; a move that finds the session already
// off old does nothing.
func (s *Session) move(old *conn, cause error) {
	began := time.Now()
	s.moveMu.Lock()
	defer s.moveMu.Unlock()
	s.mu.Lock()
	if s.c != old || s.err != nil {
		s.mu.Unlock()
		return
	}
	deadline, peer, held := s.deadline, s.peer, len(s.locks)
	s.movingOff = old // a Lock answered at old from now on is not handed out (handout.go)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.movingOff = nil
		s.mu.Unlock()
	}()
	old.stop()
	ctx, cancel := context.WithDeadline(s.root, deadline)
	defer cancel()
	at := 0
	for i, u := range s.urls {
		if u == old.url {
			at = i
		}
	}
	last, refused := cause, false
	for try := 1; ctx.Err() == nil; try++ {
		url := s.urls[(at+try)%len(s.urls)]
		kept, lost, err := s.moveTo(ctx, url, peer)
		if err == nil {
			s.moved(Move{From: old.url, To: url, Began: began, Ended: time.Now(), Kept: kept, Lost: lost})
			return
		}
		last = fmt.Errorf("lockd %s: %w", url, err)
		if !movable(err) && !errors.Is(err, lockstep.ErrLocked) {
			refused = true
			break // a refusal: another lockd would refuse the token too
		}
		// LOCKED: that lockd still holds the locks for an old session of
		// this client that moveTo could not close; it accepts them once
		// the old session lapses.
		if try%len(s.urls) == 0 {
			select { // every lockd failed: try them again a little later
			case <-ctx.Done():
			case <-time.After(max(s.ttl/20, 10*time.Millisecond)):
			}
		}
	}
	if s.root.Err() != nil {
		return // Close
	}
	why := "the session could not move to another lockd before its TTL ran out (last: %v)"
	if refused {
		why = "another lockd refused to take the session and its locks over (%v); no lockd of the cluster would accept them"
	}
	err := fmt.Errorf("lockd client: session %s: lockd %s failed (%v), and "+why+": %w",
		old.id, old.url, cause, last, errors.Join(ErrSessionEnded, lockstep.ErrLost))
	s.end(err)
	s.moved(Move{From: old.url, Began: began, Ended: time.Now(), Lost: held, Err: err})
}

// moved reports m to Options.OnMove, if set.
func (s *Session) moved(m Move) {
	if s.onMove != nil {
		s.onMove(m)
	}
}

// drained moves the session off c, whose lockd drains it (it is shutting
// down: lockd's drain.go), and then closes the session left there, which
// leaves the locks to the lockd the session moved to and lets the
// draining lockd finish early. It returns true when the session is off c
// (moved, or ended because no lockd took it).
func (s *Session) drained(c *conn, reason string) bool {
	s.move(c, fmt.Errorf("lockd drains the session: %s", reason))
	if s.cur() == c {
		return false
	}
	if s.Err() == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.root), max(s.ttl/3, time.Second))
		s.closeLeft(ctx, c)
		cancel()
	}
	return true
}
