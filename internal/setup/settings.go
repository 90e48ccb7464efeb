// Common and Resolve (settings.go) resolve and validate the options every lock algorithm
// shares (lease timing, clock, process id, logger, observer), so that each
// algorithm's public Options type applies the same defaults and refuses the
// same bad values with the same errors.

package setup

import (
	"log/slog"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// DefaultTTL is the TTL of lock cells when none is configured.
const DefaultTTL = 30 * time.Second

// Common is the shared part of an algorithm's options, as given by the user.
type Common struct {
	TTL           time.Duration
	Renew         time.Duration
	MaxServerSkew time.Duration
	Clock         lockstep.Clock
	ProcessID     string
	Logger        *slog.Logger
	Observer      lockstep.Observer
	// LeaseKnobs switch on the lease's planted defects (lease.TestingKnobs),
	// which change what Resolve accepts; nil in production.
	LeaseKnobs *lease.TestingKnobs
}

// Resolved is Common with defaults applied, validated.
type Resolved struct {
	Lease    lease.Config
	Clock    lockstep.Clock
	Process  string
	Logger   *slog.Logger
	Observer lockstep.Observer
}

// Resolve applies the defaults (TTL 30s, MaxServerSkew
// lease.DefaultMaxServerSkew, Renew lease.Config.DefaultRenew, a clock.Local,
// a random process id, a discarding logger, no observer) and validates the
// result, returning an error wrapping lockstep.ErrInvalidConfig. A negative
// TTL or Renew is refused, not defaulted.
func (c Common) Resolve() (Resolved, error) {
	r := Resolved{Lease: lease.Config{TTL: c.TTL, Renew: c.Renew, MaxServerSkew: c.MaxServerSkew, Knobs: c.LeaseKnobs},
		Clock: c.Clock, Process: c.ProcessID, Logger: c.Logger, Observer: c.Observer}
	if r.Lease.TTL == 0 {
		r.Lease.TTL = DefaultTTL
	}
	if r.Lease.MaxServerSkew == 0 {
		r.Lease.MaxServerSkew = lease.DefaultMaxServerSkew
	}
	if r.Lease.Renew == 0 && r.Lease.TTL > 0 {
		r.Lease.Renew = r.Lease.DefaultRenew()
	}
	if r.Clock == nil {
		r.Clock = &clock.Local{}
	}
	if r.Process == "" {
		r.Process = NewProcessID()
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	if r.Observer == nil {
		r.Observer = lockstep.NopObserver{}
	}
	if err := r.Lease.Validate(); err != nil {
		return r, err
	}
	return r, ValidateProcessID(r.Process)
}
