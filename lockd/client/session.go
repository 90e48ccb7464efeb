package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// Options configure Open. A nil *Options means all defaults.
type Options struct {
	// HTTPClient carries the calls (TLS and client certificates are its
	// transport's). Default http.DefaultClient.
	HTTPClient *http.Client
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token string
	// TTL is the session's TTL; 0 asks for lockd's default.
	TTL time.Duration
	// Name labels the session in lockd's logs and DescribeSession.
	Name string
	// ClientOptions are passed to the generated Connect client (for
	// example connect.WithGRPC()).
	ClientOptions []connect.ClientOption
	// Endpoints are further lockds of the same cluster (the same store and
	// peer key), which the session moves to, with its locks, when the
	// lockd it uses fails (failover.go; package doc, "Fail-over"). Default
	// none: a failed lockd ends the session and loses its locks. With
	// Endpoints, Open refuses a lockd that has no peer key, and opens the
	// session on the next lockd when Open's cannot answer (open.go).
	Endpoints []string
	// OnMove, when set, is called once for every move the session makes
	// (failover.go): after a move finished, and after one that failed and
	// ended the session. It is called on the session's own goroutine with
	// no lock held, so it must return quickly and must not call the
	// session. Default none.
	OnMove func(Move)
}

// testingKnobs plant deliberate defects for the package's own tests
// (export_test.go); production sessions have the zero value. IgnoreValidFor
// gives every lock the session's time instead of the valid_for lockd
// sends: the rule before valid_for, under which a lockd that stops
// renewing leaves its clients holding locks past its lease when their
// session TTL is the longer.
//
// AdoptStaleToken keeps the peer token Open fetched (which names no lock)
// instead of refreshing it after each Lock and Unlock, and at a move keeps
// every Lock as held, adopted or not: the defect of a fail-over that
// claims locks the other lockd never took over.
type testingKnobs struct {
	IgnoreValidFor  bool
	AdoptStaleToken bool
}

// Session is one lockd session: the locks it takes belong to it, and it
// keeps itself alive until Close. Safe for concurrent use.
type Session struct {
	ttl    time.Duration
	name   string
	dial   func(url string) lockstepv1connect.LockServiceClient
	urls   []string // the lockds: Open's first, then Options.Endpoints
	root   context.Context
	stop   context.CancelFunc
	bg     sync.WaitGroup
	moveMu sync.Mutex // one move at a time (failover.go)

	mu      sync.Mutex
	c       *conn  // the lockd and session in use
	peer    string // the identity's latest peer token, with several lockds
	peerSeq uint64 // GetToken calls sent for it
	peerAt  uint64 // the one peer came from
	moves   int
	// movingOff is the conn a move under way leaves (nil: none): the
	// move's token was chosen when it began, so a Lock answered there now
	// cannot be carried (handOut).
	movingOff *conn
	left      map[string]string // by lockd URL, the session left there by the latest move off it
	deadline  time.Time         // the keep-alive rule's: a loss is assumed after it
	locks     map[string]*Lock  // by lock handle
	// lostEarly are handles a LOCK_LOST event named, unknown to the
	// session, while a call that returns handles (Lock, SetToken) was in
	// flight (calls counts them): such a Lock is born lost. Emptied when no
	// call is in flight, so a loss of a lock another session of the
	// identity took is not kept.
	lostEarly map[string]bool
	calls     int
	done      chan struct{} // closed when the session ended
	err       error         // why it ended
	// newLock wakes the keep-alive loop to time its next call by a lock
	// just added (valid.go); buffered, never closed.
	newLock chan struct{}
	onMove  func(Move)
	knobs   testingKnobs
}

var _ lockstep.GroupLocker = (*Session)(nil)

// Open opens a session on the lockd serving url (e.g.
// "http://127.0.0.1:7420"), and starts keeping it alive and watching it.
// A lockd that cannot answer (Unavailable, a connection closed under the
// call) is tried once more, and with Options.Endpoints the others are
// tried in turn; an OpenSession whose answer was lost may leave a session
// that holds nothing and lapses after its TTL (open.go).
func Open(ctx context.Context, url string, opts *Options) (*Session, error) {
	return open(ctx, url, opts, testingKnobs{})
}

// open is Open with the package tests' planted defects.
func open(ctx context.Context, url string, opts *Options, knobs testingKnobs) (*Session, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TTL < 0 {
		return nil, fmt.Errorf("lockd client: TTL %v: want a positive TTL, or 0 for lockd's default", o.TTL)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	copts := o.ClientOptions
	if o.Token != "" {
		copts = append([]connect.ClientOption{connect.WithInterceptors(bearer(o.Token))}, copts...)
	}
	for _, u := range o.Endpoints {
		if u == "" || u == url {
			return nil, fmt.Errorf("lockd client: Endpoints %q: want the URLs of other lockds, none empty or equal to Open's %q", o.Endpoints, url)
		}
	}
	bctx, stop := context.WithCancel(context.Background())
	s := &Session{ttl: o.TTL, name: o.Name, urls: append([]string{url}, o.Endpoints...), root: bctx, stop: stop,
		dial: func(u string) lockstepv1connect.LockServiceClient {
			return lockstepv1connect.NewLockServiceClient(hc, u, copts...)
		},
		locks: map[string]*Lock{}, left: map[string]string{}, lostEarly: map[string]bool{}, done: make(chan struct{}), newLock: make(chan struct{}, 1),
		onMove: o.OnMove, knobs: knobs}
	if err := s.openFirst(ctx); err != nil {
		stop()
		return nil, err
	}
	watching := make(chan struct{})
	s.start(s.c, watching)
	select {
	case <-watching:
	case <-s.done:
	case <-ctx.Done():
	}
	return s, nil
}

// ID is the session's id at the lockd it uses now (a move opens a new one).
func (s *Session) ID() string { return s.cur().id }

// Endpoint is the URL of the lockd the session uses now.
func (s *Session) Endpoint() string { return s.cur().url }

// Moves counts the moves to another lockd the session has made (package
// doc, "Fail-over").
func (s *Session) Moves() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.moves
}

// TTL is the session's TTL as lockd granted it.
func (s *Session) TTL() time.Duration { return s.ttl }

// Done is closed when the session has ended: closed, lapsed, or assumed
// lost by the rules of the package doc; Err says which.
func (s *Session) Done() <-chan struct{} { s.check(); return s.done }

// Err is nil while the session lives, and then why it ended (wrapping
// ErrSessionEnded, and lockstep.ErrLost unless Close ended it).
func (s *Session) Err() error {
	s.check()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Lock blocks until id is held in exclusive access by this session or ctx
// is done (lockd bounds the wait by its --max-wait too).
func (s *Session) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return s.lock(ctx, "", false, lockstep.Request{ID: id})
}

// TryLock takes id only if nobody holds it or waits ahead; otherwise the
// error wraps lockstep.ErrLocked.
func (s *Session) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return s.lock(ctx, "", true, lockstep.Request{ID: id})
}

// LockGroup takes every request as one lock, as the library's GroupLocker.
// Each request's lockstep.Flags go with it (LockItem.flat, no_mask), and
// lockd refuses, with an error wrapping lockstep.ErrInvalidID, an id its
// separator reads otherwise; other flag bits are refused before any call.
func (s *Session) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return s.lock(ctx, "", false, reqs...)
}

// TryLockGroup is LockGroup without waiting.
func (s *Session) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return s.lock(ctx, "", true, reqs...)
}

// Commented returns this session's unit of work (lockstep.Unit: the same
// identity, holdings and reentrancy) whose acquisitions name it with
// comment in deadlock reports. comment must be UTF-8 (lockd carries it as
// a protobuf string): its Lock refuses another before sending anything.
func (s *Session) Commented(comment string) lockstep.Unit { return commented{s, comment} }

var _ lockstep.Unit = (*Session)(nil)

// commented is a Session whose acquisitions carry a comment.
type commented struct {
	s       *Session
	comment string
}

func (c commented) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	return c.s.lock(ctx, c.comment, false, lockstep.Request{ID: id})
}

func (c commented) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return c.s.lock(ctx, c.comment, true, lockstep.Request{ID: id})
}

func (c commented) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return c.s.lock(ctx, c.comment, false, reqs...)
}

func (c commented) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return c.s.lock(ctx, c.comment, true, reqs...)
}

func (c commented) UnlockAll(ctx context.Context) error    { return c.s.UnlockAll(ctx) }
func (c commented) Commented(comment string) lockstep.Unit { return commented{c.s, comment} }

func (s *Session) lock(ctx context.Context, comment string, try bool, reqs ...lockstep.Request) (lockstep.Lock, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("lockd client: an empty group: name at least one id: %w", lockstep.ErrInvalidID)
	}
	if !utf8.ValidString(comment) {
		return nil, fmt.Errorf("lockd client: comment %q is not valid UTF-8, and lockd carries comments as protobuf strings, "+
			"which must be: give it as UTF-8 (quote or hex-encode binary bytes); nothing was sent", comment)
	}
	for _, r := range reqs {
		if !r.Flags.Valid() {
			return nil, fmt.Errorf("lockd client: %v for id %q: lockd carries only lockstep.Flat and lockstep.NoMask; nothing was sent: %w",
				r.Flags, r.ID, lockstep.ErrInvalidID)
		}
	}
	c := s.cur()
	req := &pb.LockRequest{SessionId: c.id, Comment: comment}
	for _, r := range reqs {
		req.Items = append(req.Items, &pb.LockItem{Id: r.ID, Access: pb.Access(r.Access),
			Flat: r.Flags&lockstep.Flat != 0, NoMask: r.Flags&lockstep.NoMask != 0})
	}
	call := c.rpc.Lock
	if try {
		call = c.rpc.TryLock
	}
	s.callStarts()
	sent := time.Now()
	res, err := call(ctx, connect.NewRequest(req))
	if err != nil {
		s.callEnds()
		err = wrap(ctx, err)
		s.failed(ctx, c, err)
		return nil, err
	}
	l := newLock(s, res.Msg.GetLock(), req.GetItems())
	l.deadline = sent.Add(s.lockTime(res.Msg.GetLock().GetValidFor()))
	if time.Until(l.deadline) < s.ttl/3 {
		s.grantedLate(ctx, c, l) // a grant late in a long wait: ask again how long it stays valid
	}
	return s.handOut(ctx, c, l)
}

// UnlockAll releases every lock of the session. A lock whose lease was lost
// before is released too, and the error then wraps lockstep.ErrLost.
func (s *Session) UnlockAll(ctx context.Context) error {
	if err := s.Err(); err != nil {
		return err
	}
	c := s.cur()
	res, err := c.rpc.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: c.id}))
	if err != nil {
		err = wrap(ctx, err)
		s.failed(ctx, c, err)
		return err
	}
	for _, h := range res.Msg.GetLockIds() {
		if l := s.forget(c, h); l != nil {
			l.markReleased()
		}
	}
	s.refreshPeer()
	if lost := res.Msg.GetLostLockIds(); len(lost) > 0 {
		return fmt.Errorf("lockd client: session %s: locks %v had been lost before UnlockAll released them: %w", c.id, lost, lockstep.ErrLost)
	}
	return nil
}

// Close closes the session: lockd releases its locks. It stops the
// background calls (and a move under way) whatever lockd answers; a
// session lockd already ended is not an error.
func (s *Session) Close(ctx context.Context) error {
	s.stop()
	s.moveMu.Lock() // a move under way ends at once: its ctx is s.root's
	c := s.cur()
	s.moveMu.Unlock()
	_, err := c.rpc.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: c.id}))
	err = wrap(ctx, err)
	if errors.Is(err, ErrSessionEnded) {
		err = nil
	}
	s.end(fmt.Errorf("lockd client: session %s closed: %w", c.id, ErrSessionEnded))
	s.bg.Wait()
	return err
}

// forget removes the Lock of handle, if the session still uses c.
func (s *Session) forget(c *conn, handle string) *Lock {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != c {
		return nil
	}
	l := s.locks[handle]
	delete(s.locks, handle)
	return l
}

// end ends the session once, with err: every lock it holds is lost.
func (s *Session) end(err error) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	s.err = err
	locks := s.locks
	s.locks = map[string]*Lock{}
	close(s.done)
	s.mu.Unlock()
	for _, l := range locks {
		l.lose()
	}
}

// endIfExpired ends the session when a call's answer says lockd ended it.
func (s *Session) endIfExpired(c *conn, err error) {
	var e *Error
	if errors.As(err, &e) && (e.Reason == pb.LockError_REASON_SESSION_EXPIRED || e.Reason == pb.LockError_REASON_UNKNOWN_SESSION) &&
		s.cur() == c {
		s.end(fmt.Errorf("lockd client: session %s ended at lockd: %w", c.id, errors.Join(err, lockstep.ErrLost)))
	}
}

// check applies the keep-alive rule: past the deadline, a loss is assumed.
func (s *Session) check() {
	s.mu.Lock()
	past := s.err == nil && time.Now().After(s.deadline)
	id := s.c.id
	s.mu.Unlock()
	if past {
		s.end(fmt.Errorf("lockd client: session %s: no keep-alive answered within its TTL of %v: assumed lapsed: %w",
			id, s.ttl, errors.Join(ErrSessionEnded, lockstep.ErrLost)))
	}
}

// bearer adds the bearer token to every call.
func bearer(token string) connect.Interceptor { return bearerInterceptor("Bearer " + token) }

// callStarts and callEnds bracket a call that returns handles (lostEarly).
func (s *Session) callStarts() {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
}

func (s *Session) callEnds() {
	s.mu.Lock()
	s.callEndsLocked()
	s.mu.Unlock()
}

func (s *Session) callEndsLocked() {
	if s.calls--; s.calls == 0 {
		clear(s.lostEarly)
	}
}
