package queue

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/held"
)

// Waiting reads s.ID's partition from the floor once and reports whether a
// live queue cell of an owner other than s's is there: an acquisition of
// another process (or another of this one's, in another access) waits for
// the id. A retained store hold looks with it (internal/cohort's Watcher).
// It writes nothing; the read feeds the floor and the hybrid logical clock
// as every read does.
func (l *Locker) Waiting(ctx context.Context, s held.Spec) (bool, error) {
	n := 0
	v, err := l.read(ctx, l.row(s.ID), &n)
	if err != nil {
		return false, err
	}
	for _, e := range v.queue {
		if e.Owner != s.Owner {
			return true, nil
		}
	}
	return false, nil
}
