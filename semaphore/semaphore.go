package semaphore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// MaxSize bounds N: an Acquire that finds every slot busy tries each.
const MaxSize = 1024

// DefaultWait is Options.Wait's default.
const DefaultWait = 2 * time.Second

// Options configure a Semaphore. A nil *Options means all defaults.
type Options struct {
	// Wait is how long Acquire waits in one slot's line before trying the
	// others again. Default DefaultWait.
	Wait time.Duration
	// Clock times Wait; pass the Locker's. Default a clock.Local.
	Clock lockstep.Clock
}

// Semaphore admits at most N holders of one id. Build it with New. Safe
// for concurrent use.
type Semaphore struct {
	lk    lockstep.Locker
	id    string
	n     int
	wait  time.Duration
	clock lockstep.Clock
	next  atomic.Uint64 // the rotation: each Acquire starts one slot further
}

// Permit is one held slot: what Acquire returns. Safe for concurrent use.
type Permit struct {
	slot int
	lock lockstep.Lock
}

// New returns the semaphore of n holders of id, taking its slots through
// lk. opts may be nil. n outside [1, MaxSize], an id whose slot ids are not
// valid lock ids, or a negative Wait return an error wrapping
// lockstep.ErrInvalidConfig or lockstep.ErrInvalidID that says what to
// change.
func New(lk lockstep.Locker, id string, n int, opts *Options) (*Semaphore, error) {
	if lk == nil {
		return nil, &lockstep.ConfigError{Field: "Locker", Reason: "nil: pass a Locker (queuelock.New, migration.New)"}
	}
	if n < 1 || n > MaxSize {
		return nil, &lockstep.ConfigError{Field: "n", Reason: fmt.Sprintf("%d holders: a semaphore admits 1 to %d (1 is a plain lock: use the Locker)", n, MaxSize)}
	}
	if id == "" {
		return nil, fmt.Errorf("semaphore: %w: empty: name the resource the semaphore guards", lockstep.ErrInvalidID)
	}
	if err := lockstep.ValidateID(slotID(id, n-1)); err != nil {
		return nil, fmt.Errorf("semaphore: slot ids are %q: %w", slotID(id, 0), err)
	}
	o := deref.Of(opts)
	if o.Wait < 0 {
		return nil, &lockstep.ConfigError{Field: "Wait", Reason: fmt.Sprintf("%v is negative: leave it 0 for %v", o.Wait, DefaultWait)}
	}
	o.Wait = cmp.Or(o.Wait, DefaultWait)
	if o.Clock == nil {
		o.Clock = &clock.Local{}
	}
	s := &Semaphore{lk: lk, id: id, n: n, wait: o.Wait, clock: o.Clock}
	s.next.Store(rand.Uint64N(uint64(n))) // processes start their rotations apart
	return s, nil
}

// slotID names slot i of id's semaphore.
func slotID(id string, i int) string { return id + "/" + strconv.Itoa(i) }

// Size returns N.
func (s *Semaphore) Size() int { return s.n }

// Acquire blocks until the caller holds one of the N slots or ctx ends;
// see the package documentation for the order it tries them in and the
// fairness that gives. When ctx ends first it returns an error for which
// errors.Is(err, ctx.Err()) holds, holding nothing. An error the Locker
// cannot retry (lockstep.ErrRefused, lockstep.ErrForeignCell,
// lockstep.ErrClosed) is returned at once; other store errors are retried.
func (s *Semaphore) Acquire(ctx context.Context) (*Permit, error) {
	start := int(s.next.Add(1) % uint64(s.n))
	for round := 0; ; round++ {
		p, err := s.tryAll(ctx, start)
		if p != nil || permanent(err) {
			return p, err
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("semaphore %q: acquire: %w", s.id, ctx.Err())
		}
		slot := (start + round) % s.n
		l, err := s.waitIn(ctx, slot)
		if err == nil {
			return &Permit{slot: slot, lock: l}, nil
		}
		if permanent(err) {
			return nil, fmt.Errorf("semaphore %q: acquire: %w", s.id, err)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("semaphore %q: acquire: %w", s.id, ctx.Err())
		}
	}
}

// TryAcquire takes a slot only if one is free now, trying each once. It
// returns an error wrapping lockstep.ErrLocked when all N are held (or
// have waiters ahead), holding nothing.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Permit, error) {
	p, err := s.tryAll(ctx, int(s.next.Add(1)%uint64(s.n)))
	if p != nil || err != nil {
		return p, err
	}
	return nil, fmt.Errorf("semaphore %q: all %d slots held: %w", s.id, s.n, lockstep.ErrLocked)
}

// tryAll tries every slot once without waiting, from start on. It returns
// a Permit, or nil and the first error that is neither ErrLocked nor
// transient (nil when every slot was busy or failed transiently).
func (s *Semaphore) tryAll(ctx context.Context, start int) (*Permit, error) {
	for i := range s.n {
		slot := (start + i) % s.n
		l, err := s.lk.TryLock(ctx, slotID(s.id, slot))
		switch {
		case err == nil:
			return &Permit{slot: slot, lock: l}, nil
		case ctx.Err() != nil:
			return nil, fmt.Errorf("semaphore %q: acquire: %w", s.id, ctx.Err())
		case permanent(err):
			return nil, fmt.Errorf("semaphore %q: slot %d: %w", s.id, slot, err)
		}
	}
	return nil, nil
}

// waitIn waits in slot's line for at most s.wait or until ctx ends. The
// slice is timed by the injected clock, on a goroutine the call owns and
// waits for.
func (s *Semaphore) waitIn(ctx context.Context, slot int) (lockstep.Lock, error) {
	wctx, cancel := context.WithCancel(ctx)
	timer := make(chan struct{})
	lifecycle.Go(s.clock, func() {
		defer close(timer)
		if s.clock.Sleep(wctx, s.wait) == nil {
			cancel()
		}
	})
	l, err := s.lk.Lock(wctx, slotID(s.id, slot))
	cancel()
	<-timer
	return l, err
}

// permanent reports whether err is one no retry can change.
func permanent(err error) bool {
	return errors.Is(err, lockstep.ErrRefused) || errors.Is(err, lockstep.ErrForeignCell) ||
		errors.Is(err, lockstep.ErrClosed) || errors.Is(err, lockstep.ErrInvalidID)
}

// Slot returns which of the N slots the permit holds, 0 to N-1.
func (p *Permit) Slot() int { return p.slot }

// Lost is closed once the slot's lease is lost (lockstep.Lock's Lost): the
// holder must stop, as another caller may take the slot.
func (p *Permit) Lost() <-chan struct{} { return p.lock.Lost() }

// Release gives the slot back; it follows lockstep.Lock's Unlock: ctx
// bounds the store requests, a failed Release can be called again, and
// after a loss it returns an error wrapping lockstep.ErrLost.
func (p *Permit) Release(ctx context.Context) error { return p.lock.Unlock(ctx) }
