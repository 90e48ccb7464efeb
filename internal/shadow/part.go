package shadow

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/layout"
)

// part is a held legacy lock's share of an acquisition (internal/held): our
// cell in the main row and the lease renewing it. held.Lock calls its
// methods one at a time.
type part struct {
	l           *Locker
	id          string
	owner       string
	held.Leased      // Stop, Expired
	released    bool // every cell is deleted
	mainGone    bool // the main cell is deleted
	// shadow, when set, is the shadow delete an overlapped round left in
	// flight (overlap.go), until it or a retry of it succeeded
	shadow *pendingDelete
}

var _ held.Part = (*part)(nil)

func newPart(r *round, mode lockstep.Mode, loss *held.Loss) *part {
	l := r.l
	watched := !(mode == lockstep.ModeCombined && l.cfg.knobs.LegacyLossUnwatched)
	p := &part{l: l, id: r.id, owner: r.owner, shadow: r.shadowDelete}
	rep := held.Reporting{Algorithm: "shadowlock", Logger: l.cfg.Logger, Observer: l.cfg.Observer, ID: p.id, Owner: p.owner, Mode: mode}
	p.Lease = l.leases.Start(l.cfg.Lease, r.since, p.renew, rep.Hooks(loss, watched))
	if watched {
		loss.Watch(p.Remaining)
	}
	return p
}

// renew rewrites our main cell with a fresh timestamp and TTL.
func (p *part) renew(ctx context.Context) error {
	return p.l.store.Put(ctx, p.l.cfg.main, p.id,
		layout.LegacyCell(p.owner, p.l.ts.Next(), p.l.cfg.Lease.TTL))
}

// Release deletes our main cell. The owner id is this acquisition's alone,
// so a retry after a failed delete can touch no one else's cell. Unretried,
// the cell expires after the TTL. An overlapped round's shadow delete, left
// in flight (overlap.go), is waited for here; if it failed, Release sends it
// again at once (it failed before this call, which has not tried it), and
// reports an error only if that fails too; the next call sends it again.
func (p *part) Release(ctx context.Context) (bool, error) {
	if p.released {
		return false, nil
	}
	var errs []error
	if !p.mainGone {
		if err := p.l.store.Delete(ctx, p.l.cfg.main, p.id, p.l.ts.Next(), layout.LegacyColumn(p.owner)); err != nil {
			errs = append(errs, fmt.Errorf("shadowlock: unlock %q: %w", p.id, err))
		} else {
			p.mainGone = true
		}
	}
	if d := p.shadow; d != nil {
		if d.done != nil {
			<-d.done // no goroutine of the acquisition outlives its release
			d.done = nil
		}
		if d.err != nil { // it failed in flight, or at the last call: send it again
			d.err = p.l.store.Delete(ctx, p.l.cfg.shadow, p.id, p.l.ts.Next(), layout.LegacyColumn(p.owner))
		}
		if d.err != nil {
			errs = append(errs, fmt.Errorf("shadowlock: unlock %q: shadow cell: %w", p.id, d.err))
		} else {
			p.shadow = nil
		}
	}
	if len(errs) > 0 {
		return true, errors.Join(errs...)
	}
	p.released = true
	return true, nil
}
