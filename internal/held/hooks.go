package held

import (
	"context"
	"log/slog"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// Reporting is where a part's lease reports: the algorithm's name for log
// lines, its Logger and Observer, and the acquisition's id, owner and mode.
type Reporting struct {
	Algorithm string // "queuelock", "shadowlock"
	Logger    *slog.Logger
	Observer  lockstep.Observer
	ID, Owner string
	Mode      lockstep.Mode
}

// Hooks returns the lease hooks of a part: a failed renewal is logged at
// Warn, every renewal and the loss reach the Observer, and the loss fires
// loss (when fire is set; a planted defect may leave it out).
func (r Reporting) Hooks(loss *Loss, fire bool) lease.Hooks {
	return lease.Hooks{
		Renewed: func(err error) {
			if err != nil {
				r.Logger.Warn(r.Algorithm+": renewal failed", slog.String("id", r.ID), slog.String("owner", r.Owner), slog.Any("err", err))
			}
			r.Observer.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: r.ID, Owner: r.Owner, Mode: r.Mode, Renewed: err == nil, Err: err})
		},
		Lost: func() {
			if fire {
				loss.Fire()
			}
			r.Logger.Warn(r.Algorithm+": lease lost", slog.String("id", r.ID), slog.String("owner", r.Owner))
			r.Observer.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: r.ID, Owner: r.Owner, Mode: r.Mode, Lost: true})
		},
	}
}

// Leased gives a part Stop and Expired over its lease; parts embed it.
type Leased struct{ Lease *lease.Lease }

// Stop ends renewal, waits for the renewal in flight, and reports whether
// the lease had been lost.
func (x *Leased) Stop() bool {
	x.Lease.Stop()
	return x.Lease.IsLost()
}

// Expired reports whether the lease's deadline passed (declaring it lost).
func (x *Leased) Expired() bool { return x.Lease.IsLost() }

// Remaining is the lease's time left, its Loss's source (Loss.Watch).
func (x *Leased) Remaining() time.Duration { return x.Lease.Remaining() }
