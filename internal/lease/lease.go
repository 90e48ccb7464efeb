package lease

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Hooks are told about renewals; nil fields are skipped. They are called
// without any lock held: Renewed from the goroutine that ran the renewal,
// Lost from whichever goroutine noticed the loss first (the Scheduler's, or
// a caller of Lost or IsLost). They should return quickly: Lost may run on
// the Scheduler's goroutine, which every lease of the Locker shares.
type Hooks struct {
	Renewed func(err error) // after each renewal attempt
	Lost    func()          // once, when the lease is declared lost
}

// Lease renews one acquisition's cells, through its Scheduler, until stopped
// or lost. Safe for concurrent use.
type Lease struct {
	s     *Scheduler
	clock lockstep.Clock
	cfg   Config
	renew func(context.Context) error
	hooks Hooks
	lost  chan struct{}

	mu     sync.Mutex // guards lastOK and isLost; taken after Scheduler.mu
	lastOK int64      // Stamp (elapsed µs): when the last successful write (acquisition or renewal) was sent
	isLost bool

	// Guarded by s.mu: the lease's place in the Scheduler.
	seq      uint64             // order of Start, to break ties between equal times
	at       int64              // Stamp of its next event: a renewal due or the deadline
	renewAt  int64              // Stamp at which the next renewal is due
	due      int                // index in s.due; -1 if not there
	ready    int                // index in s.ready; -1 if not there
	inFlight context.CancelFunc // cancels the renewal in flight; nil if none
	done     bool               // stopped or lost: nothing more is scheduled

	running sync.WaitGroup // the renewal in flight, for Stop
}

// Lost is closed once the lease is lost. It also checks the deadline itself,
// so a caller that looks at Lost before working never works past it, even if
// the Scheduler has not got round to the deadline yet (after a pause of the
// whole process, or an acquisition whose last request was answered late).
func (l *Lease) Lost() <-chan struct{} {
	l.check()
	return l.lost
}

// IsLost reports whether the lease was lost, checking the deadline as Lost
// does.
func (l *Lease) IsLost() bool {
	l.check()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.isLost
}

// Remaining returns how long, from now on the lease's clock, the lease
// stays valid if no renewal succeeds from now on: the deadline less now,
// or 0 once the lease is lost (it checks the deadline as Lost does, and a
// lease stopped by its Unlock is past it no sooner). A caller that tells
// someone else how long the lock is safe must count it from before it
// asked.
func (l *Lease) Remaining() time.Duration {
	l.check()
	now := Stamp(l.clock)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.isLost {
		return 0
	}
	left := l.lastOK + l.cfg.Window().Microseconds() - now
	if k := l.cfg.knobs().RemainingPastDeadline; k > 0 {
		left += k.Microseconds() // the planted defect: a bound later than the deadline
	}
	return max(time.Duration(left)*time.Microsecond, 0)
}

// check declares the lease lost if no renewal sent within the last Window
// has succeeded. It only closes Lost: the Scheduler unschedules the lease at
// its deadline entry, so a caller that merely looked at Lost never wakes the
// Scheduler's goroutines behind a simulator's back.
func (l *Lease) check() {
	if l.cfg.knobs().LostTrustsScheduler {
		return // the planted defect: only the Scheduler's deadline entry closes Lost
	}
	if l.expired(Stamp(l.clock)) {
		l.declareLost()
	}
}

// deadline is the Stamp at which the lease ends unless a renewal sent
// before it succeeds.
func (l *Lease) deadline() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastOK + l.cfg.Window().Microseconds()
}

// expired reports whether now is at or past the deadline of a lease not yet
// declared lost.
func (l *Lease) expired(now int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.isLost && now >= l.lastOK+l.cfg.Window().Microseconds()
}

// succeeded records a successful renewal sent at sent.
func (l *Lease) succeeded(sent int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sent > l.lastOK {
		l.lastOK = sent
	}
}

// Stop ends renewal and waits for a renewal in flight. It is idempotent.
// After Stop returns, no renewal is in flight, so the caller may delete the
// cells knowing no rewrite will follow.
func (l *Lease) Stop() {
	l.s.unschedule(l)
	l.running.Wait()
}

// declareLost closes Lost once, whoever notices first, and calls the Lost
// hook.
func (l *Lease) declareLost() {
	l.mu.Lock()
	if l.isLost {
		l.mu.Unlock()
		return
	}
	l.isLost = true
	l.mu.Unlock()
	close(l.lost)
	if l.hooks.Lost != nil {
		l.hooks.Lost()
	}
}
