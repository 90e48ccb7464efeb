package shadow

import (
	"github.com/lockstep-go/lockstep/internal/lease"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Default table names of the frozen legacy format.
const (
	DefaultMainTable   = "legacy_main"
	DefaultShadowTable = "legacy_shadow"
)

// Options configure a Locker: shadowlock.Options, field for field (the
// front converts its *Options to this type, so the two must keep the same
// fields in the same order; shadowlock.Options documents them). The zero
// value of every field means its default; a nil *Options means all
// defaults. New refuses invalid values.
type Options struct {
	MainTable, ShadowTable string
	Separator              string
	Deadlock               *lockstep.DeadlockDetection
	TTL                    time.Duration
	Renew                  time.Duration
	MaxServerSkew          time.Duration
	Clock                  lockstep.Clock
	ProcessID              string
	Logger                 *slog.Logger
	Observer               lockstep.Observer
	Fencing                *clock.Global
	Rand                   *rand.Rand
	TestingKnobs           *TestingKnobs
}

type config struct {
	setup.Resolved
	main, shadow string
	fencing      *clock.Global
	rand         *rand.Rand
	knobs        TestingKnobs // planted defects; zero in production
}

func (o *Options) resolve() (config, error) {
	var in Options
	if o != nil {
		in = *o
	}
	common, err := setup.Common{
		TTL: in.TTL, Renew: in.Renew, MaxServerSkew: in.MaxServerSkew, Clock: in.Clock, ProcessID: in.ProcessID,
		Logger: in.Logger, Observer: in.Observer, LeaseKnobs: leaseKnobs(in.TestingKnobs),
	}.Resolve()
	c := config{Resolved: common, main: in.MainTable, shadow: in.ShadowTable, fencing: in.Fencing, rand: in.Rand}
	if in.TestingKnobs != nil {
		c.knobs = *in.TestingKnobs
	}
	if err != nil {
		return c, err
	}
	if c.main == "" {
		c.main = DefaultMainTable
	}
	if c.shadow == "" {
		c.shadow = DefaultShadowTable
	}
	if err := lockstep.ValidateName("MainTable", c.main); err != nil {
		return c, err
	}
	if err := lockstep.ValidateName("ShadowTable", c.shadow); err != nil {
		return c, err
	}
	if c.main == c.shadow {
		return c, &lockstep.ConfigError{Field: "ShadowTable", Reason: "must differ from MainTable: the legacy lock needs two tables (default legacy_main and legacy_shadow); use the names the legacy fleet uses"}
	}
	if c.rand == nil {
		c.rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return c, nil
}

// leaseKnobs returns the lease's planted defects among k; nil for none.
func leaseKnobs(k *TestingKnobs) *lease.TestingKnobs {
	if k == nil {
		return nil
	}
	return k.Lease
}
