package migration

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/ident"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Options configure a Locker. The zero value of every field means its
// default; a nil *Options means all defaults.
type Options struct {
	// Clock is the process's clock. Default a clock.Local.
	Clock lockstep.Clock
	// ProcessID is the process's fleet-unique id, 1 to 255 bytes of
	// [A-Za-z0-9._:-] (a pod's FQDN fits). Default the sanitized host name,
	// '-' and 64 random bits in hex, so the census names the machine.
	ProcessID string
	// Queue configures the queue algorithm used in modes new and combined.
	// Its Clock and ProcessID, if set, must equal the ones above. Default
	// nil (queuelock's defaults).
	Queue *queuelock.Options
	// Legacy configures the shadow-table algorithm used in modes legacy and
	// combined; its tables and TTL must match the legacy fleet's. Its Clock
	// and ProcessID, if set, must equal the ones above. Default nil
	// (shadowlock's defaults).
	Legacy *shadowlock.Options
	// Fencing, when set, gives every lock this Locker takes, in every mode, a
	// fencing token (lockstep.Fenced) from the global time service: legacy
	// and new locks draw one after their claim, combined locks one after
	// both halves are held. Tokens strictly increase across successive
	// owners of a lock id, whatever mode each took it in, as long as every
	// process of the fleet draws from the same global time table. Legacy
	// binaries not built on this library draw none, so a fenced resource
	// shared with them is only protected against holders that draw one.
	// Queue.Fencing and Legacy.Fencing must be left unset. Default none:
	// Token returns 0.
	// A lock of several members (a group, or with Separator an id with
	// ancestors) is not lockstep.Fenced: each member has its own token and
	// they have no common order (internal/manager); lock the resource's own
	// id alone to fence it.
	Fencing *clock.Global
	// Separator makes lock ids hierarchical (seed 004), in every mode: with
	// "/", a lock of "a/b/c" also takes "a" and "a/b" first, in the
	// intention access of what it asks for (lockstep.Access.Intention). In
	// mode new that is the queue lock's access; in modes combined and legacy
	// every member is exclusive (the legacy format knows no other access:
	// locks below one ancestor then exclude each other — safe, and slower). Set it
	// here, not on Queue or Legacy; every process of the fleet must use the
	// same one. Default "": flat ids.
	Separator string
	// CensusTable is the census table. Default DefaultCensusTable.
	CensusTable string
	// PhaseTable is the phase table. Default DefaultPhaseTable.
	PhaseTable string
	// CensusTTL is the TTL of this process's census entry, a whole number
	// of seconds no shorter than the smallest safe lease TTL (4s with the
	// default MaxServerSkew of 1s; the larger of Queue.MaxServerSkew and
	// Legacy.MaxServerSkew, when set, applies to the census too). Its lease window is (CensusTTL − 1s −
	// MaxServerSkew)/2 on elapsed time: the entry is rewritten every half
	// window, and locks are refused, and held ones signalled lost, once no
	// write sent in the last window has succeeded. Default DefaultCensusTTL
	// (30s).
	CensusTTL time.Duration
	// PhaseCache is how long the guard reuses a phase it read, as long as
	// the mode asked for has stayed published in the census meanwhile.
	// Default 1s.
	PhaseCache time.Duration
	// FlagStaleFor is how long the flag source's last good answer is still
	// used while the source fails (a flag file briefly missing, a flag
	// service restarting), with a Warn through Logger; past it, acquisitions
	// fail with the source's error (KeepLastGood has the details and why
	// this is safe). Default DefaultFlagStaleFor (30s); negative turns it
	// off.
	FlagStaleFor time.Duration
	// Host is reported in the census. Default os.Hostname().
	Host string
	// Version is reported in the census. Default the main module's version
	// from the binary's build information.
	Version string
	// Logger receives census trouble at Warn, and every algorithm's
	// renewal trouble and loss unless Queue or Legacy set their own.
	// Default discards.
	Logger *slog.Logger
	// Observer receives the events of every algorithm (unless Queue or
	// Legacy set their own) and of refused acquisitions. Default none.
	Observer lockstep.Observer
}

// config is Options resolved and validated.
type config struct {
	censusTable, phaseTable string
	censusTTL, phaseCache   time.Duration
	census                  lease.Config // the census entry's lease: its window bounds a lock's trust in the census
	host, version           string
	logger                  *slog.Logger
	observer                lockstep.Observer
}

func (o *Options) resolve(process string) (config, error) {
	var in Options
	if o != nil {
		in = *o
	}
	c := config{censusTable: in.CensusTable, phaseTable: in.PhaseTable, censusTTL: in.CensusTTL,
		phaseCache: in.PhaseCache, host: in.Host, version: in.Version, logger: in.Logger, observer: in.Observer}
	if err := ident.ValidateProcessID(process); err != nil {
		return c, err
	}
	def := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	def(&c.censusTable, DefaultCensusTable)
	def(&c.phaseTable, DefaultPhaseTable)
	if err := lockstep.ValidateName("CensusTable", c.censusTable); err != nil {
		return c, err
	}
	if err := lockstep.ValidateName("PhaseTable", c.phaseTable); err != nil {
		return c, err
	}
	if c.censusTTL == 0 {
		c.censusTTL = DefaultCensusTTL
	}
	// The census entry lives on the same servers as the locks: its lease
	// assumes the larger skew either algorithm was configured with.
	c.census = lease.Config{TTL: c.censusTTL}
	if in.Queue != nil {
		c.census.MaxServerSkew = in.Queue.MaxServerSkew
	}
	if in.Legacy != nil {
		c.census.MaxServerSkew = max(c.census.MaxServerSkew, in.Legacy.MaxServerSkew)
	}
	if c.census.MaxServerSkew == 0 {
		c.census.MaxServerSkew = lease.DefaultMaxServerSkew
	}
	c.census.Renew = c.census.DefaultRenew()
	if err := c.census.Validate(); err != nil {
		var ce *lockstep.ConfigError
		if errors.As(err, &ce) {
			ce.Field = "CensusTTL"
		}
		return c, err
	}
	if c.phaseCache == 0 {
		c.phaseCache = time.Second
	}
	if c.phaseCache < 0 {
		return c, &lockstep.ConfigError{Field: "PhaseCache", Reason: fmt.Sprintf("%v must not be negative: use 0 for the default (1s) or a positive period", c.phaseCache)}
	}
	if c.host == "" {
		c.host, _ = os.Hostname()
	}
	if c.version == "" {
		c.version = "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			c.version = bi.Main.Version
		}
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.observer == nil {
		c.observer = lockstep.NopObserver{}
	}
	return c, nil
}

// algorithms are the three lockers of one process.
type algorithms struct {
	legacy   *shadowlock.Locker
	combined *combined.Locker
	queue    *queuelock.Locker
	fencing  *clock.Global // Options.Fencing; nil without fencing
}

// newAlgorithms builds one queue Locker and one legacy Locker for the
// process, and the combined Locker composing the two. Modes share them: a
// lock taken in mode new and the queue half of one taken in mode combined
// come from the same queue Locker, so goroutines of a process whose flag
// flips between the two still contend for an id one at a time in the store
// (internal/turn), and owner ids, numbered by one Locker per table, never
// repeat within a table.
func newAlgorithms(store lockstep.Store, clk lockstep.Clock, process string, o *Options, obs lockstep.Observer, logger *slog.Logger) (algorithms, error) {
	var qo queuelock.Options
	var so shadowlock.Options
	if o != nil && o.Queue != nil {
		qo = *o.Queue
	}
	if o != nil && o.Legacy != nil {
		so = *o.Legacy
	}
	if (qo.Clock != nil && !sameClock(qo.Clock, clk)) || (so.Clock != nil && !sameClock(so.Clock, clk)) {
		return algorithms{}, &lockstep.ConfigError{Field: "Queue.Clock/Legacy.Clock", Reason: "one process has one clock: set Options.Clock and leave these unset (or equal to it)"}
	}
	if (qo.ProcessID != "" && qo.ProcessID != process) || (so.ProcessID != "" && so.ProcessID != process) {
		return algorithms{}, &lockstep.ConfigError{Field: "Queue.ProcessID/Legacy.ProcessID",
			Reason: fmt.Sprintf("one process has one id (%q, Options.ProcessID): leave these unset (or equal to it)", process)}
	}
	if qo.Separator != "" || so.Separator != "" {
		return algorithms{}, &lockstep.ConfigError{Field: "Queue.Separator/Legacy.Separator",
			Reason: "set migration Options.Separator instead and leave these unset: it applies to every mode, and the inner Lockers must take flat ids (the migration Locker takes the ancestors once)"}
	}
	if qo.Fencing != nil || so.Fencing != nil {
		return algorithms{}, &lockstep.ConfigError{Field: "Queue.Fencing/Legacy.Fencing",
			Reason: "set migration Options.Fencing instead: it applies to every mode (combined locks draw one token for both halves)"}
	}
	var fence *clock.Global
	if o != nil {
		fence = o.Fencing
	}
	qo.Clock, so.Clock = clk, clk
	qo.ProcessID, so.ProcessID = process, process
	qo.Fencing, so.Fencing = fence, fence // legacy and new locks draw their own; combined ones one for both halves
	if qo.Observer == nil {
		qo.Observer = obs
	}
	if so.Observer == nil {
		so.Observer = obs
	}
	if qo.Logger == nil {
		qo.Logger = logger
	}
	if so.Logger == nil {
		so.Logger = logger
	}
	var a algorithms
	var err error
	if a.legacy, err = shadowlock.New(store, &so); err != nil {
		return a, err
	}
	if a.queue, err = queuelock.New(store, &qo); err != nil {
		return a, err
	}
	held.ShareOwners(a.queue.Parts(held.Key{}), a.legacy.Parts(held.Key{})) // owner ids unique across the process's two Lockers
	a.fencing = fence
	if a.combined, err = combined.Compose(a.queue, a.legacy, &combined.ComposeOptions{Fencing: fence, Observer: obs}); err != nil {
		return a, err
	}
	return a, nil
}

// sameClock reports whether a and b are the same clock (false if their type
// cannot be compared).
func sameClock(a, b lockstep.Clock) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

func clockOr(c lockstep.Clock) lockstep.Clock {
	if c == nil {
		return &clock.Local{}
	}
	return c
}
