package shadow

import (
	"cmp"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Default table names of the frozen legacy format.
const (
	DefaultMainTable   = "legacy_main"
	DefaultShadowTable = "legacy_shadow"
)

// Options configure a Locker (shadowlock.Options is this type, documented
// here once). The zero value of every field means its default; a nil
// *Options means all defaults. New refuses invalid values.
type Options struct {
	// MainTable and ShadowTable name the legacy tables; use the legacy
	// fleet's. Defaults DefaultMainTable and DefaultShadowTable.
	MainTable, ShadowTable string
	// Separator, when set, makes ids hierarchical, as
	// queuelock.Options.Separator says; every member is exclusive. Default
	// "": flat ids.
	Separator string
	// Deadlock, when set, turns on deadlock detection, as
	// queuelock.Options.Deadlock says. Default nil: off.
	Deadlock *lockstep.DeadlockDetection
	// TTL is written on every cell: whole seconds, at least 4s with the
	// default MaxServerSkew. Default 30s.
	TTL time.Duration
	// Renew is the renewal period, at most (TTL − 1s − MaxServerSkew)/4.
	// Default TTL/3 or that bound, whichever is shorter.
	Renew time.Duration
	// MaxServerSkew bounds the clock difference between Cassandra nodes.
	// The lease window is derived from it, so it must not be below the real
	// skew. Default 1s.
	MaxServerSkew time.Duration
	// Clock is this process's clock. Default a clock.Local.
	Clock lockstep.Clock
	// ProcessID prefixes owner ids and must be unique in the fleet: 1 to 255
	// bytes of [A-Za-z0-9._:-]. Default the host name and 64 random bits.
	ProcessID string
	// Logger receives renewal trouble and loss at Warn. Default discards.
	Logger *slog.Logger
	// Observer receives events. Default none.
	Observer lockstep.Observer
	// Fencing, when set, gives each acquisition a token drawn from this
	// service (lockstep.Fenced). Default none: the locks are not lockstep.Fenced.
	Fencing *clock.Global
	// Rand draws the backoff. Default a randomly initialised PCG.
	Rand *rand.Rand
	// TestingKnobs plant defects for negative controls. Leave nil.
	TestingKnobs *TestingKnobs
}

type config struct {
	setup.Process // the process's settings, resolved
	Lease         lease.Config
	main, shadow  string
	rand          *rand.Rand
	knobs         TestingKnobs // planted defects; zero in production
}

// process returns o's process-wide settings, for setup.Process.Resolve.
func (o *Options) process() setup.Process {
	in := deref.Of(o)
	return setup.Process{Clock: in.Clock, ID: in.ProcessID, Logger: in.Logger, Observer: in.Observer, Fencing: in.Fencing, Separator: in.Separator, Deadlock: in.Deadlock}
}

// resolve resolves o's own fields, beside p, the process's settings
// resolved (o's fields of p's names are not read).
func (o *Options) resolve(p setup.Process) (config, error) {
	in := deref.Of(o)
	c := config{Process: p, main: cmp.Or(in.MainTable, DefaultMainTable), shadow: cmp.Or(in.ShadowTable, DefaultShadowTable),
		rand: in.Rand, knobs: deref.Of(in.TestingKnobs)}
	var err error
	if c.Lease, err = setup.Lease(in.TTL, in.Renew, in.MaxServerSkew, c.knobs.Lease); err != nil {
		return c, err
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
