package lease

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Hooks are told about renewals; nil fields are skipped. They are called from
// the lease's goroutines without any lock held.
type Hooks struct {
	Renewed func(err error) // after each renewal attempt
	Lost    func()          // once, when the lease is declared lost
}

// Lease renews one acquisition's cells until stopped or lost. Safe for
// concurrent use.
type Lease struct {
	clock lockstep.Clock
	cfg   Config
	renew func(context.Context) error
	hooks Hooks

	cancel context.CancelFunc
	wg     sync.WaitGroup
	lost   chan struct{}

	mu     sync.Mutex
	lastOK int64 // Stamp (elapsed µs): when the last successful write (acquisition or renewal) was sent
	isLost bool
}

// Start begins renewing. since is the Stamp at which the write that acquired
// the cells was sent; the lease counts from there, on elapsed time. renew rewrites the
// cells with a fresh timestamp and TTL; it receives a context that Stop
// cancels.
func Start(c lockstep.Clock, cfg Config, since int64, renew func(context.Context) error, hooks Hooks) *Lease {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Lease{clock: c, cfg: cfg, renew: renew, hooks: hooks, cancel: cancel, lost: make(chan struct{}), lastOK: since}
	l.wg.Add(2)
	go l.renewLoop(ctx)
	go l.watch(ctx)
	return l
}

// Lost is closed once the lease is lost. It also checks the deadline itself,
// so a caller that looks at Lost before working never works past it, even if
// the watchdog goroutine has not run yet (after a pause of the whole process,
// or an acquisition whose last request was answered late).
func (l *Lease) Lost() <-chan struct{} {
	l.check()
	return l.lost
}

// check declares the lease lost if no renewal sent within the last Window
// has succeeded.
func (l *Lease) check() {
	l.mu.Lock()
	expired := !l.isLost && Stamp(l.clock) >= l.lastOK+l.cfg.Window().Microseconds()
	l.mu.Unlock()
	if expired {
		l.declareLost(false)
	}
}

// IsLost reports whether the lease was lost, checking the deadline as Lost
// does.
func (l *Lease) IsLost() bool {
	l.check()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.isLost
}

// Stop ends renewal and waits for the lease's goroutines. It is idempotent.
// After Stop returns, no renewal is in flight, so the caller may delete the
// cells knowing no rewrite will follow.
func (l *Lease) Stop() {
	l.cancel()
	l.wg.Wait()
}

func (l *Lease) renewLoop(ctx context.Context) {
	defer l.wg.Done()
	wait := l.cfg.Renew
	for {
		if err := l.clock.Sleep(ctx, wait); err != nil {
			return
		}
		if l.IsLost() {
			return // never renew at or past the deadline, even if the watchdog has not run
		}
		sent := Stamp(l.clock)
		err := l.renew(ctx)
		if ctx.Err() != nil {
			return // stopped or lost while renewing: the outcome no longer matters
		}
		// After a failure retry soon: with Renew = Window/2 the next regular
		// attempt would come at the deadline, so one timeout would lose the
		// lease.
		wait = l.cfg.Renew / 4
		if err == nil {
			wait = l.cfg.Renew
			l.mu.Lock()
			if sent > l.lastOK {
				l.lastOK = sent
			}
			l.mu.Unlock()
		}
		if l.hooks.Renewed != nil {
			l.hooks.Renewed(err)
		}
	}
}

// watch declares the lease lost once no renewal sent within the last Window
// has succeeded.
func (l *Lease) watch(ctx context.Context) {
	defer l.wg.Done()
	limit := l.cfg.Window().Microseconds()
	for {
		l.mu.Lock()
		deadline := l.lastOK + limit
		l.mu.Unlock()
		now := Stamp(l.clock)
		if now >= deadline {
			l.declareLost(true)
			return
		}
		if err := l.clock.Sleep(ctx, time.Duration(deadline-now)*time.Microsecond); err != nil {
			return
		}
	}
}

// declareLost closes Lost once, whoever notices first. Only the watchdog
// cancels the lease's goroutines (stop): a caller that merely looked at Lost
// must not wake them behind a simulator's back; the renewer checks IsLost
// before every renewal, so it sends nothing after the deadline either way.
func (l *Lease) declareLost(stop bool) {
	if stop {
		defer l.cancel()
	}
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
