package main

import (
	"context"
	"time"

	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// The lockd events a segment records for the lockd-loss checker.

// wrap times every lockd nemesis of evs for the lockd-loss checker: its
// events are noted from its strike (the signal or the cut, after the wait
// for a hold) to the start of its heal,
// with the clients it affects, and counted by kind.
func (s *lockdSet) wrap(evs []nemesis.Event) []nemesis.Event {
	out := append([]nemesis.Event(nil), evs...)
	for i, e := range out {
		if a, ok := e.Nemesis.(nemesis.Affecting); ok {
			out[i].Nemesis = &lockdTimed{Affecting: a, set: s}
		}
	}
	return out
}

// lockdEvents are the recorded events, a heal not begun ending at end.
func (s *lockdSet) lockdEvents(end time.Time) []check.LockdEvent {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]check.LockdEvent(nil), s.events...)
	for i := range out {
		if out[i].To == 0 {
			out[i].To = end.Sub(s.r.epoch).Nanoseconds()
		}
	}
	return out
}

// lockdTimed is a lockd nemesis whose injection and heal the set notes.
type lockdTimed struct {
	nemesis.Affecting
	set *lockdSet
	i   int // index into set.events while injected, else -1
	on  bool
}

func (t *lockdTimed) Inject(ctx context.Context) error {
	if err := t.Affecting.Inject(ctx); err != nil {
		return err
	}
	s := t.set
	s.mu.Lock()
	defer s.mu.Unlock()
	if !t.on {
		t.on, t.i = true, len(s.events)
		s.events = append(s.events, check.LockdEvent{Name: t.Name(), Clients: t.Affected(),
			From: s.struck.Sub(s.r.epoch).Nanoseconds()})
		s.counts[nemesis.KindOf(t.Affecting)]++
		// Whether a client held then is the lockd-loss checker's to say
		// (a short hold may end between the wait for it and the strike).
		s.r.logf("struck  %s at %.1fs since the epoch", t.Name(), s.struck.Sub(s.r.epoch).Seconds())
	}
	return nil
}

func (t *lockdTimed) Heal(ctx context.Context) error {
	s := t.set
	s.mu.Lock()
	if t.on {
		t.on = false
		s.events[t.i].To = time.Since(s.r.epoch).Nanoseconds()
	}
	s.mu.Unlock()
	return t.Affecting.Heal(ctx)
}
