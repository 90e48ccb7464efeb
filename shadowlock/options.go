package shadowlock

import (
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/settings"
)

// Default table names of the frozen legacy format.
const (
	DefaultMainTable   = "legacy_main"
	DefaultShadowTable = "legacy_shadow"
)

// Options configure a Locker. The zero value of every field means its
// default; a nil *Options means all defaults.
type Options struct {
	// MainTable and ShadowTable name the legacy tables. Defaults
	// DefaultMainTable and DefaultShadowTable; a fleet that already has them
	// under other names sets these.
	MainTable, ShadowTable string
	// TTL is written on every cell; a whole number of seconds. Default 30s.
	TTL time.Duration
	// Renew is the holder's renewal interval; at most TTL/3. Default TTL/3.
	Renew time.Duration
	// Clock is this process's clock. Default a clock.Local.
	Clock lockstep.Clock
	// ProcessID prefixes owner ids; 1–64 of [A-Za-z0-9._:-]. Default random.
	// It must be unique across the fleet: two lockers sharing one would issue
	// the same owner ids and could both believe they hold a lock.
	ProcessID string
	// Logger receives renewal trouble and loss at Warn. Default discards.
	Logger *slog.Logger
	// Observer receives events. Default none.
	Observer lockstep.Observer
	// Rand draws the backoff of listing 5. Default a randomly seeded PCG.
	// It is used under the locker's mutex.
	Rand *rand.Rand
}

type config struct {
	settings.Resolved
	main, shadow string
	rand         *rand.Rand
}

func (o *Options) resolve() (config, error) {
	var in Options
	if o != nil {
		in = *o
	}
	common, err := settings.Common{
		TTL: in.TTL, Renew: in.Renew, Clock: in.Clock, ProcessID: in.ProcessID,
		Logger: in.Logger, Observer: in.Observer,
	}.Resolve()
	c := config{Resolved: common, main: in.MainTable, shadow: in.ShadowTable, rand: in.Rand}
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
		return c, &lockstep.ConfigError{Field: "ShadowTable", Reason: "must differ from MainTable"}
	}
	if c.rand == nil {
		c.rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return c, nil
}
