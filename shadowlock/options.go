package shadowlock

import (
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
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
	// Separator, when set, makes lock ids hierarchical (seed 004): with "/",
	// a lock of "a/b/c" also takes "a" and "a/b" first. The legacy format
	// has exclusive locks only, so every member of a group, an ancestor's
	// intention lock included, is taken exclusively: a lock then conflicts
	// with its ancestors' and descendants' as it must, and also with its
	// siblings' (they share an ancestor) — safe, and slower than in mode
	// new. Lock, TryLock and the group calls all follow it; the lock
	// returned is then a group (lockstep.Grouped). 1 to 8 bytes; an id with
	// an empty segment ("a//b", "/a", "a/") is refused. Every process locking
	// the same ids must use the same Separator. Default "": flat ids.
	Separator string
	// TTL is written on every cell; a whole number of seconds, at least
	// the smallest TTL that leaves a safe lease given MaxServerSkew (4s with
	// the default skew; see MaxServerSkew). Zero means the default, 30s; a
	// negative TTL is refused.
	TTL time.Duration
	// Renew is the renewal interval of holders; at most half the lease
	// window, (TTL − 1s − MaxServerSkew)/4. Zero means the default: TTL/3 or
	// that bound, whichever is shorter (7s with the defaults).
	Renew time.Duration
	// MaxServerSkew bounds how far apart the clocks of any two Cassandra
	// nodes read. Cassandra expires a cell in whole seconds on each
	// replica's own clock, so a cell written with TTL t lives only
	// t − 1s − MaxServerSkew; a holder's lease (how long after a successful
	// write it counts itself the holder, on its monotonic clock) is half of
	// that (internal/lease has the derivation). Keep server clocks in sync
	// (NTP) and this a safe bound on their difference. Default 1s.
	MaxServerSkew time.Duration
	// Clock is this process's clock. Default a clock.Local.
	Clock lockstep.Clock
	// ProcessID prefixes owner ids; 1 to 255 bytes of [A-Za-z0-9._:-].
	// Default the sanitized host name, '-' and 64 random bits in hex.
	// It must be unique across the fleet: two lockers sharing one would issue
	// the same owner ids and could both believe they hold a lock.
	ProcessID string
	// Logger receives renewal trouble and loss at Warn. Default discards.
	Logger *slog.Logger
	// Observer receives events. Default none.
	Observer lockstep.Observer
	// Fencing, when set, gives every acquisition a fencing token
	// (lockstep.Fenced) from the global time service, strictly increasing
	// across successive owners of a lock id — also across owners taken in
	// another mode, if every Locker of the fleet draws from the same global
	// time table (package fence's documentation has the argument). It lives
	// in the global time table, not in the legacy rows: the frozen format is
	// unchanged. Legacy binaries not built on this library draw no token, so
	// a fenced resource shared with them is only protected against holders
	// that draw one. Default none: Token returns 0.
	Fencing *clock.Global
	// Rand draws the backoff of listing 5. Default a randomly seeded PCG.
	// It is used under the locker's mutex.
	Rand *rand.Rand
}

type config struct {
	settings.Resolved
	main, shadow string
	fencing      *clock.Global
	rand         *rand.Rand
}

func (o *Options) resolve() (config, error) {
	var in Options
	if o != nil {
		in = *o
	}
	common, err := settings.Common{
		TTL: in.TTL, Renew: in.Renew, MaxServerSkew: in.MaxServerSkew, Clock: in.Clock, ProcessID: in.ProcessID,
		Logger: in.Logger, Observer: in.Observer,
	}.Resolve()
	c := config{Resolved: common, main: in.MainTable, shadow: in.ShadowTable, fencing: in.Fencing, rand: in.Rand}
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
