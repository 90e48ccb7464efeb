package lease

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// DefaultMaxInFlight is Options.MaxInFlight's default: how many renewals of
// one Scheduler may be in flight at once.
const DefaultMaxInFlight = 32

// Options configure a Scheduler. A nil *Options means all defaults.
type Options struct {
	// MaxInFlight bounds the renewals in flight at once, each on a goroutine
	// of its own that lives only as long as its request. Default
	// DefaultMaxInFlight (32); it must not be negative. A renewal that falls
	// due while all slots are taken waits for one (doc.go says why that is
	// safe and what it costs).
	MaxInFlight int
}

// Scheduler keeps every lease of one Locker alive with one goroutine: it
// keeps the leases in a min-heap by their next event — a renewal due or the
// deadline — and sleeps on the Locker's clock until the earliest. A due
// renewal runs on a short-lived goroutine, at most Options.MaxInFlight at
// once; a deadline closes the lease's Lost on time whether or not a renewal
// ran. The goroutine exists only while some lease is scheduled: a Locker
// that holds nothing costs none, and one that holds 10,000 locks one plus
// the renewals in flight. Safe for concurrent use.
type Scheduler struct {
	clock lockstep.Clock
	max   int

	mu       sync.Mutex
	due      dueHeap   // every scheduled lease, by its next event
	ready    readyHeap // leases whose renewal is due, waiting for a slot
	inFlight int       // renewals in flight
	seq      uint64    // leases started, for a stable order
	running  bool      // the scheduler's goroutine exists
	closed   bool
	wake     context.CancelFunc // ends the goroutine's sleep early; nil while it is awake
	wakeAt   int64              // Stamp at which the sleeping goroutine wakes

	loops sync.WaitGroup // the scheduler's goroutine, for Close
}

// NewScheduler returns a Scheduler sleeping on c. A nil opts means all
// defaults; a negative MaxInFlight returns an error wrapping
// lockstep.ErrInvalidConfig.
func NewScheduler(c lockstep.Clock, opts *Options) (*Scheduler, error) {
	o := deref.Of(opts)
	switch {
	case o.MaxInFlight < 0:
		return nil, &lockstep.ConfigError{Field: "MaxInFlight", Reason: fmt.Sprintf("%d must not be negative; use 0 for the default, %d", o.MaxInFlight, DefaultMaxInFlight)}
	case o.MaxInFlight == 0:
		o.MaxInFlight = DefaultMaxInFlight
	}
	return &Scheduler{clock: c, max: o.MaxInFlight}, nil
}

// Start begins renewing. since is the Stamp at which the write that acquired
// the cells was sent; the lease counts from there, on elapsed time. renew
// rewrites the cells with a fresh timestamp and TTL; it receives a context
// that Stop, and the lease's deadline, cancel. The first renewal is due
// cfg.Renew (or cfg.FirstRenew, if shorter) after since — at once if that
// has passed — not after Start: an
// acquisition that took longer than Window − Renew between its winning
// write and Start would otherwise reach its deadline before renewing once
// (a healthy lease lost; found by the robustness suite on a real node, one
// hold in 169 at TTL 4s). After Close, Start returns a lease already lost.
func (s *Scheduler) Start(cfg Config, since int64, renew func(context.Context) error, hooks Hooks) *Lease {
	l := &Lease{s: s, clock: s.clock, cfg: cfg, renew: renew, hooks: hooks, lost: make(chan struct{}), lastOK: since, due: -1, ready: -1}
	s.mu.Lock()
	if s.closed {
		l.done = true
		s.mu.Unlock()
		l.declareLost()
		return l
	}
	s.seq++
	l.seq = s.seq
	first := cfg.Renew
	if cfg.FirstRenew > 0 && cfg.FirstRenew < first {
		first = cfg.FirstRenew
	}
	l.renewAt = since + micros(first)
	if cfg.knobs().RenewFromStart {
		l.renewAt = Stamp(s.clock) + micros(first)
	}
	place(&s.due, l, min(l.renewAt, l.deadline()))
	s.wakeFor(l.at)
	s.mu.Unlock()
	return l
}

// Close declares every lease still scheduled lost, cancels and waits for
// their renewals in flight, and ends the scheduler's goroutine and waits for
// it. Lockers call it in their Close, after releasing the locks they hold,
// so normally nothing is left. It is idempotent.
func (s *Scheduler) Close() {
	s.mu.Lock()
	s.closed = true
	var lost []*Lease
	for len(s.due) > 0 {
		l := s.due[0]
		s.drop(l)
		lost = append(lost, l)
	}
	s.poke()
	s.mu.Unlock()
	for _, l := range lost {
		l.declareLost()
		l.running.Wait()
	}
	s.loops.Wait()
}

// run is the scheduler's goroutine: it handles what is due, sleeps until the
// next event or until woken, and ends when nothing is scheduled.
func (s *Scheduler) run() {
	defer s.loops.Done()
	for {
		ctx, d, lost, ok := s.pass()
		for _, l := range lost {
			l.declareLost()
		}
		if !ok {
			return
		}
		err := s.clock.Sleep(ctx, d)
		s.mu.Lock()
		woken := ctx.Err() != nil
		if !woken {
			s.wake() // releases the context; nobody else will
			s.wake = nil
		}
		s.mu.Unlock()
		if err != nil && !woken {
			// The clock cannot sleep (a crashed simulated process): without
			// it no deadline can be kept, so every lease ends now.
			s.abandon()
			return
		}
	}
}

// pass handles every entry due now, in order: a lease at or past its
// deadline is dropped and returned, to be declared lost; a lease whose
// renewal is due joins the ready heap. Then it launches at most one ready
// renewal, and returns the sleep until the next event, with the context
// that wakes it early — or ok false when nothing is scheduled, and the
// goroutine must end.
//
// One launch per pass gives a simulator (model/sim) a yield point between
// two launches, so it can interleave renewals with other work; the
// simulator orders the renewal goroutines themselves by the names it gives
// them (internal/lifecycle). When more renewals are ready, the sleep is 1ns: no time at
// all on a real clock (a fraction of a microsecond), and on a simulated one
// a yield point, after which the previous renewal waits at its own.
func (s *Scheduler) pass() (ctx context.Context, d time.Duration, lost []*Lease, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.running = false
		return nil, 0, nil, false
	}
	now := Stamp(s.clock)
	for len(s.due) > 0 && s.due[0].at <= now {
		l := s.due[0]
		if s.pastDeadline(l, now) {
			s.drop(l)
			lost = append(lost, l)
			continue
		}
		if l.inFlight != nil || l.ready >= 0 {
			// Its renewal succeeded after all, and has not finished yet:
			// the deadline moved. One renewal per lease at a time.
			place(&s.due, l, l.deadline())
			continue
		}
		// Its renewal is due, before its deadline: it waits for a slot, and
		// its entry stays in the due heap for the deadline.
		heap.Push(&s.ready, l)
		place(&s.due, l, l.deadline())
	}
	launched := false
	if len(s.ready) > 0 && s.inFlight < s.max {
		s.launch(heap.Pop(&s.ready).(*Lease))
		launched = true
	}
	if len(s.due) == 0 {
		s.running = false
		return nil, 0, lost, false
	}
	d = time.Duration(s.due[0].at-now) * time.Microsecond
	if launched && len(s.ready) > 0 && s.inFlight < s.max {
		d = time.Nanosecond
	}
	ctx, s.wake = context.WithCancel(context.Background())
	s.wakeAt = now + micros(d)
	return ctx, d, lost, true
}

// wakeFor makes sure the scheduler's goroutine handles an entry at time at
// on time: it starts the goroutine if there is none, and wakes it if it
// sleeps past at. Call with s.mu held.
func (s *Scheduler) wakeFor(at int64) {
	if !s.running {
		s.running = true
		s.loops.Add(1)
		lifecycle.Go(s.clock, s.run)
		return
	}
	if s.wake != nil && at < s.wakeAt {
		s.poke()
	}
}

// poke wakes the scheduler's goroutine if it sleeps. Call with s.mu held.
func (s *Scheduler) poke() {
	if s.wake != nil {
		s.wake()
		s.wake = nil
	}
}

// unschedule takes l out of the scheduler for good and cancels its renewal
// in flight, if any (Stop then waits for it).
func (s *Scheduler) unschedule(l *Lease) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop(l)
}

// drop takes l out of the heaps for good and cancels its renewal in flight,
// releasing the renewal's slot at once: whoever cancels a renewal releases
// its slot, so which renewal runs next never depends on how fast a cancelled
// goroutine winds down. Call with s.mu held.
func (s *Scheduler) drop(l *Lease) {
	if l.done {
		return
	}
	l.done = true
	s.due.remove(l)
	s.ready.remove(l)
	if l.inFlight != nil {
		l.inFlight()
		l.inFlight = nil
		s.inFlight--
		if len(s.ready) > 0 {
			s.poke() // a slot is free for a waiting renewal
		}
	}
	if len(s.due) == 0 {
		s.poke() // nothing left: the goroutine may end now
	}
}

// abandon ends every scheduled lease: the clock failed.
func (s *Scheduler) abandon() {
	s.mu.Lock()
	var lost []*Lease
	for len(s.due) > 0 {
		l := s.due[0]
		s.drop(l)
		lost = append(lost, l)
	}
	s.running = false
	s.mu.Unlock()
	for _, l := range lost {
		l.declareLost()
	}
}

// micros rounds d up to whole microseconds, as the clocks' Sleep does.
func micros(d time.Duration) int64 {
	return int64((d + time.Microsecond - 1) / time.Microsecond)
}
