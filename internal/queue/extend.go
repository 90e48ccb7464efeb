package queue

import (
	"context"
	"errors"

	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lease"
)

var _ cohort.Extender = (*Locker)(nil)

// Extend draws a fresh block of n fencing tokens for s, a store hold this
// Locker granted that the local-handoff layer extends past its bound
// (internal/cohort's Extender), and returns the block's first. It keeps
// the block only if s's lease was open when the draw returned — s.Loss,
// whose check runs the renewed lease's in-time deadline — as an
// acquisition keeps its token (internal/fencing), and if the draw returned
// within the lease window of its send, as a claim's draw does: a draw that
// slow is taken for a sign the hold should go back to the store, which
// the layer then does at the bound. Otherwise it returns an error wrapping
// fencing.ErrLapsed. It writes nothing but the global time
// cell; without Options.Fencing it refuses with errNoFencing and draws
// nothing. ctx bounds the draw's two requests.
func (l *Locker) Extend(ctx context.Context, s held.Spec, n int) (int64, error) {
	f := l.cfg.Fencing
	if f == nil {
		return 0, errNoFencing
	}
	sent := lease.Stamp(l.cfg.Clock)
	return fencing.Drawer{Global: f, Block: n, Knobs: l.cfg.knobs.Fencing}.Draw(ctx, func() bool {
		return !s.Loss.Fired() && l.cfg.Lease.InTime(l.cfg.Clock, sent)
	})
}

// errNoFencing is Extend's error for a Locker without fencing tokens.
var errNoFencing = errors.New("queuelock: no fencing tokens to extend (Options.Fencing is nil)")
