package lease

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// launch starts l's due renewal on a goroutine of its own, in a slot. Call
// with s.mu held.
func (s *Scheduler) launch(l *Lease) {
	ctx, cancel := context.WithCancel(context.Background())
	l.inFlight = cancel
	s.inFlight++
	l.running.Add(1)
	lifecycle.Go(s.clock, func() { s.renewal(ctx, l) })
}

// renewal runs one renewal of l. It never sends at or past the deadline,
// even if the scheduler launched it just before: it looks at the deadline
// right before sending. ctx is cancelled when l is stopped or reaches its
// deadline; the outcome then no longer matters, and the canceller has
// released the slot.
func (s *Scheduler) renewal(ctx context.Context, l *Lease) {
	defer l.running.Done()
	sent := Stamp(l.clock)
	if s.pastDeadline(l, sent) {
		l.declareLost()
		s.finish(ctx, l, false)
		return
	}
	err := l.renew(ctx)
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		l.succeeded(sent)
	}
	if l.hooks.Renewed != nil {
		l.hooks.Renewed(err)
	}
	s.finish(ctx, l, err == nil)
}

// finish releases the slot of l's renewal and schedules l's next event:
// after a success the next renewal in Renew, after a failure a retry in
// Renew/4 (with Renew = Window/2 the next regular attempt would come at the
// deadline, so one timeout would lose the lease), and either way the
// deadline. Both count from now, the end of the renewal.
func (s *Scheduler) finish(ctx context.Context, l *Lease, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil || l.inFlight == nil {
		return // cancelled meanwhile: the canceller released the slot
	}
	l.inFlight() // releases the context's resources
	l.inFlight = nil
	s.inFlight--
	wait := l.cfg.Renew / 4
	if ok {
		wait = l.cfg.Renew
	}
	now := Stamp(s.clock)
	l.renewAt = now + micros(wait)
	place(&s.due, l, min(l.renewAt, l.deadline()))
	s.wakeFor(l.at)
	if len(s.ready) > 0 {
		s.poke() // a slot is free for a waiting renewal
	}
}

// pastDeadline reports whether l is over at now: declared lost, or at or
// past its deadline whether or not anyone has declared it lost yet. A lease
// declared lost stays lost even if a renewal sent before its deadline
// succeeds afterwards.
func (s *Scheduler) pastDeadline(l *Lease, now int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.isLost || now >= l.lastOK+l.cfg.Window().Microseconds()
}
