package queuelock

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/bugs"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/serial"
)

// handle is a held queue lock. Safe for concurrent use.
type handle struct {
	l     *Locker
	id    string
	owner string
	qcol  string
	ocol  string
	stale []string // cells of this acquisition a failed delete left behind
	since int64    // lease.Stamp of the winning claim's send
	token int64
	lease *lease.Lease

	// unlockMu is held for a whole Unlock, so concurrent calls serialize
	// and none returns while another's delete is in flight.
	unlockMu serial.Mutex
	stopped  bool // renewal stopped and the turn passed on: an Unlock ran
	released bool // the cells are deleted: later calls return nil
}

var (
	_ lockstep.Lock   = (*handle)(nil)
	_ lockstep.Fenced = (*handle)(nil)
)

func newHandle(a *attempt, since int64) *handle {
	// The owner column is the Locker's, not this acquisition's: Unlock
	// deletes it only while it holds the turn, so it must not also come
	// back through the cells a failed delete of the attempt left behind.
	stale := slices.DeleteFunc(slices.Clone(a.stale), func(c string) bool { return c == a.ocol && !bugs.Planted(bugs.StaleOwnerColumn) })
	h := &handle{l: a.l, id: a.id, owner: a.owner, qcol: a.qcol, ocol: a.ocol, stale: stale, since: since}
	l := a.l
	h.lease = l.leases.Start(l.cfg.Lease, since, h.renew, lease.Hooks{
		Renewed: func(err error) {
			if err != nil {
				l.cfg.Logger.Warn("queuelock: renewal failed", slog.String("id", h.id), slog.String("owner", h.owner), slog.Any("err", err))
			}
			l.cfg.Observer.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: h.id, Owner: h.owner, Mode: lockstep.New, Renewed: err == nil, Err: err})
		},
		Lost: func() {
			l.cfg.Logger.Warn("queuelock: lease lost", slog.String("id", h.id), slog.String("owner", h.owner))
			l.cfg.Observer.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: h.id, Owner: h.owner, Mode: lockstep.New, Lost: true})
		},
	})
	return h
}

// renew rewrites both cells with a fresh timestamp and TTL, in one request.
func (h *handle) renew(ctx context.Context) error {
	ttl := h.l.cfg.Lease.TTL
	return h.l.store.Put(ctx, h.l.cfg.table, h.id,
		lockstep.Cell{Column: h.qcol, Value: []byte(h.owner), Timestamp: h.l.ts.Next(), TTL: ttl},
		lockstep.Cell{Column: h.ocol, Value: []byte(h.owner), Timestamp: h.l.ts.Next(), TTL: ttl})
}

func (h *handle) ID() string            { return h.id }
func (h *handle) Owner() string         { return h.owner }
func (h *handle) Mode() lockstep.Mode   { return lockstep.New }
func (h *handle) Lost() <-chan struct{} { return h.lease.Lost() }

// Token is the fencing token drawn for this acquisition (Options.Fencing),
// or 0 without fencing.
func (h *handle) Token() int64 { return h.token }

// Unlock stops renewal, waits for it, and deletes this acquisition's queue and
// owner cells in one request (with a timestamp above every write of theirs).
// Then the next goroutine of this process waiting for the id may contend. It
// follows lockstep.Lock's contract: concurrent calls serialize, a call after
// the release returns nil, and after a loss the first call returns an error
// wrapping lockstep.ErrLost.
//
// If the delete fails, Unlock returns the error and the next call retries it;
// renewal stays stopped and the in-process turn is passed on at once (the
// cells expire after the TTL if nobody retries). The owner cell is shared by
// every acquisition of this Locker, so a retry deletes it only while no other
// goroutine of this process holds or awaits the id; otherwise that
// goroutine's claim rewrites it, or it expires. Close retries too.
func (h *handle) Unlock(ctx context.Context) error {
	if err := h.unlockMu.Lock(ctx); err != nil {
		return fmt.Errorf("queuelock: unlock %q: waiting for another Unlock: %w", h.id, err)
	}
	if h.released {
		h.unlockMu.Unlock()
		return nil
	}
	first := !h.stopped
	lost := false
	if first {
		h.lease.Stop()
		lost = h.lease.IsLost()
		h.stopped = true
	}
	// The first call holds the turn (the handle owns it); a retry takes it
	// back only if it is free, so its owner-cell delete cannot reach a
	// newer acquisition's cell.
	turn := first || h.l.turns.TryAcquire(h.id)
	cols := []string{h.qcol}
	if turn {
		cols = append(cols, h.ocol)
	}
	err := h.l.store.Delete(ctx, h.l.cfg.table, h.id, h.l.ts.Next(), append(cols, h.stale...)...)
	if turn {
		h.l.turns.Release(h.id)
	}
	if err != nil {
		err = fmt.Errorf("queuelock: unlock %q: %w", h.id, err)
	} else {
		h.released = true
		h.l.life.Untrack(h)
	}
	h.unlockMu.Unlock()
	h.l.cfg.Observer.ObserveRelease(ctx, lockstep.ReleaseEvent{
		ID: h.id, Owner: h.owner, Mode: lockstep.New, WasLost: lost, Err: err, Requests: 1,
		Held: time.Duration(lease.Stamp(h.l.cfg.Clock)-h.since) * time.Microsecond,
	})
	if lost {
		return errors.Join(fmt.Errorf("queuelock: unlock %q: %w", h.id, lockstep.ErrLost), err)
	}
	return err
}
