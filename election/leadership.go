package election

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Leadership is one tenure: what Campaign returns to the winner. Safe for
// concurrent use.
type Leadership struct {
	e     *Election
	lock  lockstep.Lock
	term  int64
	value string

	once     sync.Once
	resigned chan struct{} // closed by the first Resign
	stop     context.CancelFunc
	refresh  sync.WaitGroup
	ctx      context.Context // the refresher's; cancelled by Resign
}

func newLeadership(e *Election, l lockstep.Lock, term int64, value string) *Leadership {
	ctx, stop := context.WithCancel(context.Background())
	return &Leadership{e: e, lock: l, term: term, value: value, resigned: make(chan struct{}), ctx: ctx, stop: stop}
}

// Term is this tenure's term: its lock's fencing token.
func (l *Leadership) Term() int64 { return l.term }

// Value is what the leader passed to Campaign.
func (l *Leadership) Value() string { return l.value }

// Done is closed when the tenure is over: the lock's lease was lost, which
// happens before any other candidate can win, or Resign was called (after
// Resign, Done returns a closed channel). Like lockstep.Lock's Lost, it
// checks the lease's deadline itself on every call, so a leader that looks
// at Done before each step never works past its tenure. The leader must
// stop acting as leader once it is closed, and then call Resign, which
// cleans up and reports the loss.
func (l *Leadership) Done() <-chan struct{} {
	select {
	case <-l.resigned:
		return l.resigned
	default:
	}
	if k := l.e.cfg.knobs; k != nil && k.LeaseUnchecked {
		return l.resigned
	}
	return l.lock.Lost()
}

// Resign ends the tenure: it stops the record's refresh (waiting for it),
// deletes this tenure's leader record (never a successor's) and releases the
// lock, so the next candidate in line leads. ctx bounds the store requests.
// If the lease had been lost, the error wraps lockstep.ErrLost, as Unlock's
// does. A failed Resign can be called again; what it could not delete
// expires after its TTL.
func (l *Leadership) Resign(ctx context.Context) error {
	l.once.Do(func() {
		close(l.resigned)
		l.stop()
	})
	l.refresh.Wait()
	var errs []error
	if err := l.e.deleteRecord(ctx, l.term); err != nil {
		errs = append(errs, fmt.Errorf("election %q: deleting the leader record: %w", l.e.id, err))
	}
	if err := l.lock.Unlock(ctx); err != nil {
		errs = append(errs, fmt.Errorf("election %q: resign: %w", l.e.id, err))
	}
	return errors.Join(errs...)
}

// publish writes the leader record, retrying after store errors every Poll,
// until it succeeds, ctx ends or the lease is lost.
func (l *Leadership) publish(ctx context.Context) error {
	for {
		if lost(l.lock) {
			return lockstep.ErrLost
		}
		err := l.e.putRecord(ctx, l.term, l.value)
		if err == nil {
			return nil
		}
		if errors.Is(err, lockstep.ErrRefused) {
			return err
		}
		if serr := l.e.cfg.clock.Sleep(ctx, l.e.cfg.poll); serr != nil {
			return errors.Join(serr, err)
		}
	}
}

// startRefresh starts the goroutine that rewrites the record every Refresh
// while the lease holds. Its writes carry the term as their timestamp, so a
// late one can neither replace a successor's record nor outlive Resign's
// tombstone. Resign stops it and waits for it.
func (l *Leadership) startRefresh() {
	l.refresh.Add(1)
	lifecycle.Go(l.e.cfg.clock, func() {
		defer l.refresh.Done()
		for {
			if l.e.cfg.clock.Sleep(l.ctx, l.e.cfg.refresh) != nil || lost(l.lock) {
				return
			}
			// A failed write is retried at the next refresh; the record
			// outlives two failures in a row (Refresh <= TTL/3).
			_ = l.e.putRecord(l.ctx, l.term, l.value)
		}
	})
}

// lost reports whether l's lease is lost, checking its deadline.
func lost(l lockstep.Lock) bool {
	select {
	case <-l.Lost():
		return true
	default:
		return false
	}
}
