package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd/client"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// lockdMode is the mode a lockd worker's records carry: lockd takes each
// lock in the mode of the fleet's phase and does not say which
// (client.Lock.Mode is lockstep.ModeUnknown), so the checkers that judge
// modes (liveness's legacy rule, the bypass bound) see a mode of its own.
const lockdMode = "lockd"

// lockdLocker takes locks through a lockd (--lockd): one session at a time,
// lockd/client's Session, a lockstep.GroupLocker. Given several lockds
// (--lockd URL,URL...), the session fails over (Options.Endpoints): when
// its lockd fails it moves to another with its locks, and each move is
// recorded (moves). A session that ended — lockd said so, its watch stream
// broke, or no keep-alive was answered for its TTL and no other lockd took
// it over (lockd/client's loss rules) — has lost its locks; the next Lock
// opens a new session first.
type lockdLocker struct {
	urls  []string // its lockd, then the others it may move to
	ttl   time.Duration
	name  string
	moves func(client.Move) // records a move; nil with one lockd

	mu   sync.Mutex
	sess *client.Session
}

var _ lockstep.GroupLocker = (*lockdLocker)(nil)

func newLockdLocker(c config, moves func(client.Move)) *lockdLocker {
	return &lockdLocker{urls: c.lockdURLs, ttl: c.lockdSessionTTL, name: c.process, moves: moves}
}

// recordMove is the fail-over worker's Options.OnMove: one line of its
// moves history (history.Move) per move.
func (w *worker) recordMove(m client.Move) {
	r := history.Move{Process: w.c.process, Lang: history.LangGo, From: m.From, To: m.To,
		BeganNS: w.clk.At(m.Began), EndedNS: w.clk.At(m.Ended), Kept: m.Kept, Lost: m.Lost}
	if m.Err != nil {
		r.Err = m.Err.Error()
	}
	if err := w.moves.WriteMove(r); err != nil {
		w.histErr.Add(1)
		fmt.Fprintln(os.Stderr, "rbworker:", err)
	}
}

// session returns the live session, opening one when there is none or the
// last one ended.
func (l *lockdLocker) session(ctx context.Context) (*client.Session, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess != nil && l.sess.Err() == nil {
		return l.sess, nil
	}
	if l.sess != nil {
		// Its locks are lost already; Close stops its goroutines. lockd
		// may be down or cut off: do not wait for it. Why it ended goes to
		// the worker's log.
		fmt.Fprintf(os.Stderr, "rbworker %s: session at %s ended: %v\n", l.name, l.sess.Endpoint(), l.sess.Err())
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 500*time.Millisecond)
		_ = l.sess.Close(cctx)
		cancel()
		l.sess = nil
	}
	s, err := client.Open(ctx, l.urls[0], &client.Options{TTL: l.ttl, Name: l.name, Endpoints: l.urls[1:], OnMove: l.moves})
	if err != nil {
		return nil, fmt.Errorf("open a lockd session at %s: %w", strings.Join(l.urls, ", "), err)
	}
	l.sess = s
	return s, nil
}

func (l *lockdLocker) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	s, err := l.session(ctx)
	if err != nil {
		return nil, err
	}
	return s.Lock(ctx, id)
}

func (l *lockdLocker) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	s, err := l.session(ctx)
	if err != nil {
		return nil, err
	}
	return s.TryLock(ctx, id)
}

func (l *lockdLocker) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	s, err := l.session(ctx)
	if err != nil {
		return nil, err
	}
	return s.LockGroup(ctx, reqs...)
}

func (l *lockdLocker) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	s, err := l.session(ctx)
	if err != nil {
		return nil, err
	}
	return s.TryLockGroup(ctx, reqs...)
}

// Close closes the session, if any: lockd releases what it still holds.
func (l *lockdLocker) Close(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess == nil {
		return nil
	}
	err := l.sess.Close(ctx)
	l.sess = nil
	if errors.Is(err, client.ErrSessionEnded) {
		return nil
	}
	return err
}

// lossWatch follows one lockd hold's Lost channel and keeps the instant it
// closed: the instant the client knew the lock was lost, by lockd/client's
// rules (lockd said so, the watch stream broke, or no keep-alive was
// answered for the session's TTL counted from the send of the last answered
// one). That instant ends a lost lockd hold in the history (tracker.deadline):
// the checkers then require no other holder before it. The channel also
// closes when Unlock releases the lock; the instant is then after the
// Unlock's invocation and ends nothing (release records the Unlock).
//
// When the lock's own time ran out (the sighting is at or past its
// ValidUntil: lockd/client closes Lost at that deadline), the instant is
// the deadline itself, and expired is set: a worker paused past the
// deadline sees Lost late, but its client counted the lock lost from the
// deadline on.
type lossWatch struct {
	done    chan struct{} // closed once at is set
	at      int64         // ns since the epoch
	expired bool          // the lock's own time had run out
	stop    chan struct{}
}

// validUntil is lockd/client's Lock: its own deadline.
type validUntil interface{ ValidUntil() time.Time }

func (t *tracker) watchLoss(l lockstep.Lock) *lossWatch {
	lw := &lossWatch{done: make(chan struct{}), stop: make(chan struct{})}
	go func() {
		select {
		case <-l.Lost():
			seen := time.Now()
			lw.at = t.w.clk.At(seen)
			if v, ok := l.(validUntil); ok {
				if until := v.ValidUntil(); !seen.Before(until) {
					lw.at, lw.expired = min(lw.at, t.w.clk.At(until)), true
				}
			}
			close(lw.done)
		case <-lw.stop:
		}
	}()
	return lw
}

// known returns when the client knew of the loss, waiting up to wait for the
// watcher (a caller that has just seen Lost closed knows it fires at once),
// or 0 when the loss is not known.
func (lw *lossWatch) known(wait time.Duration) int64 {
	if lw == nil {
		return 0
	}
	select {
	case <-lw.done:
		return lw.at
	default:
	}
	if wait <= 0 {
		return 0
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-lw.done:
		return lw.at
	case <-t.C:
		return 0
	}
}

// end stops the watcher (the hold is over).
func (lw *lossWatch) end() {
	if lw != nil {
		close(lw.stop)
	}
}

// lockdDeadline is a lockd hold's deadline as far as the worker knows it:
// the instant the client knew of the loss once it did, and until then when
// Lock returned, a lower bound. wait is how long to wait for the watcher: a
// caller that has seen Lost closed knows it fires at once.
//
// A worker planted with lockd-ignores-lost has no watcher: it believes
// it held the lock until Unlock said otherwise.
func lockdDeadline(h *hold, wait time.Duration) int64 {
	if h.loss == nil {
		return h.invoke // Lock has not returned
	}
	if at := h.loss.known(wait); at != 0 {
		return at
	}
	return h.heldAt
}
