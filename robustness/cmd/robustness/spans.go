package main

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// spanRecorder notes when each DC partition of a segment was in place, for
// the checkers' per-scope counts (check.Options.Partitions), or (wrapFaults)
// each fault, for the cycle checker (check.Options.Faults).
type spanRecorder struct {
	mu   sync.Mutex
	from []time.Time
	to   []time.Time // zero while in place
}

// wrap returns evs with every DC partition wrapped so that its Inject and
// Heal are timed; the other events are unchanged.
func (s *spanRecorder) wrap(evs []nemesis.Event) []nemesis.Event {
	out := append([]nemesis.Event(nil), evs...)
	for i, e := range out {
		if nemesis.KindOf(e.Nemesis) == nemesis.KindDCPartition {
			out[i].Nemesis = &timed{Nemesis: e.Nemesis, rec: s}
		}
	}
	return out
}

// wrapFaults is wrap for every event the lock-manager workers may feel:
// all but the lockd nemeses (they take no lock through lockd), for the
// cycle checker's check.Options.Faults.
func (s *spanRecorder) wrapFaults(evs []nemesis.Event) []nemesis.Event {
	out := append([]nemesis.Event(nil), evs...)
	for i, e := range out {
		if !nemesis.IsLockd(nemesis.KindOf(e.Nemesis)) {
			out[i].Nemesis = &timed{Nemesis: e.Nemesis, rec: s}
		}
	}
	return out
}

// spans are the recorded intervals in ns since epoch; one still in place
// (its heal was the final heal's) ends at end.
func (s *spanRecorder) spans(epoch, end time.Time) []check.Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []check.Span
	for i, f := range s.from {
		t := s.to[i]
		if t.IsZero() {
			t = end
		}
		out = append(out, check.Span{From: f.Sub(epoch).Nanoseconds(), To: t.Sub(epoch).Nanoseconds()})
	}
	return out
}

// timed is a nemesis whose injections and heals the recorder notes.
type timed struct {
	nemesis.Nemesis
	rec *spanRecorder
	on  bool
}

func (t *timed) Inject(ctx context.Context) error {
	if err := t.Nemesis.Inject(ctx); err != nil {
		return err
	}
	t.rec.mu.Lock()
	defer t.rec.mu.Unlock()
	if !t.on {
		t.on = true
		t.rec.from, t.rec.to = append(t.rec.from, time.Now()), append(t.rec.to, time.Time{})
	}
	return nil
}

func (t *timed) Heal(ctx context.Context) error {
	err := t.Nemesis.Heal(ctx)
	t.rec.mu.Lock()
	defer t.rec.mu.Unlock()
	if t.on {
		t.on = false
		t.rec.to[len(t.rec.to)-1] = time.Now()
	}
	return err
}
