package shadowlock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/serial"
)

// handle is a held legacy lock: our cell in the main row. Safe for
// concurrent use.
type handle struct {
	l     *Locker
	id    string
	owner string
	since int64
	token int64 // fencing token; 0 without fencing
	lease *lease.Lease

	// mu is held for a whole Unlock, so concurrent calls serialize and none
	// returns while another's delete is in flight.
	mu       serial.Mutex
	stopped  bool // renewal stopped: an Unlock ran
	released bool // the main cell is deleted: later calls return nil
}

var (
	_ lockstep.Lock   = (*handle)(nil)
	_ lockstep.Fenced = (*handle)(nil)
)

func newHandle(r *round) *handle {
	l := r.l
	h := &handle{l: l, id: r.id, owner: r.owner, since: r.since, token: r.token}
	h.lease = l.leases.Start(l.cfg.Lease, r.since, h.renew, lease.Hooks{
		Renewed: func(err error) {
			if err != nil {
				l.cfg.Logger.Warn("shadowlock: renewal failed", "id", h.id, "owner", h.owner, "err", err)
			}
			l.cfg.Observer.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: h.id, Owner: h.owner, Mode: lockstep.Legacy, Renewed: err == nil, Err: err})
		},
		Lost: func() {
			l.cfg.Logger.Warn("shadowlock: lease lost", "id", h.id, "owner", h.owner)
			l.cfg.Observer.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: h.id, Owner: h.owner, Mode: lockstep.Legacy, Lost: true})
		},
	})
	return h
}

// renew rewrites our main cell with a fresh timestamp and TTL.
func (h *handle) renew(ctx context.Context) error {
	return h.l.store.Put(ctx, h.l.cfg.main, h.id,
		lockstep.Cell{Column: h.owner, Value: []byte{}, Timestamp: h.l.ts.Next(), TTL: h.l.cfg.Lease.TTL})
}

func (h *handle) ID() string            { return h.id }
func (h *handle) Owner() string         { return h.owner }
func (h *handle) Mode() lockstep.Mode   { return lockstep.Legacy }
func (h *handle) Lost() <-chan struct{} { return h.lease.Lost() }

// Token is the fencing token drawn for this acquisition (Options.Fencing),
// or 0 without fencing.
func (h *handle) Token() int64 { return h.token }

// Unlock stops renewal, waits for it, and deletes our main cell. It follows
// lockstep.Lock's contract: concurrent calls serialize, a call after the
// release returns nil, and after a loss the first call returns an error
// wrapping lockstep.ErrLost. If the delete fails, Unlock returns the error,
// renewal stays stopped and the next call (or Close) retries the delete; the
// owner id is this acquisition's alone, so a retry can touch no one else's
// cell. Unretried, the cell expires after the TTL.
func (h *handle) Unlock(ctx context.Context) error {
	if err := h.mu.Lock(ctx); err != nil {
		return fmt.Errorf("shadowlock: unlock %q: waiting for another Unlock: %w", h.id, err)
	}
	if h.released {
		h.mu.Unlock()
		return nil
	}
	lost := false
	if !h.stopped {
		h.lease.Stop()
		lost = h.lease.IsLost()
		h.stopped = true
	}
	err := h.l.store.Delete(ctx, h.l.cfg.main, h.id, h.l.ts.Next(), h.owner)
	if err != nil {
		err = fmt.Errorf("shadowlock: unlock %q: %w", h.id, err)
	} else {
		h.released = true
		h.l.life.Untrack(h)
	}
	h.mu.Unlock()
	h.l.cfg.Observer.ObserveRelease(ctx, lockstep.ReleaseEvent{ID: h.id, Owner: h.owner, Mode: lockstep.Legacy,
		WasLost: lost, Err: err, Requests: 1, Held: time.Duration(lease.Stamp(h.l.cfg.Clock)-h.since) * time.Microsecond})
	if lost {
		return errors.Join(fmt.Errorf("shadowlock: unlock %q: %w", h.id, lockstep.ErrLost), err)
	}
	return err
}
