package migration

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/internal/ident"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Options configure a Locker. The zero value of every field means its
// default; a nil *Options means all defaults.
type Options struct {
	// Queue configures the queue algorithm used in modes new and combined.
	// Its Clock and ProcessID must be left unset: New sets them. Default nil
	// (queuelock's defaults).
	Queue *queuelock.Options
	// Legacy configures the shadow-table algorithm used in modes legacy and
	// combined; its tables and TTL must match the legacy fleet's. Clock and
	// ProcessID must be left unset. Default nil (shadowlock's defaults).
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
	Fencing *clock.Global
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

// maxProcessLen leaves room for the suffix that tells the three algorithms'
// owner ids apart (":combined").
const maxProcessLen = 64 - len(":combined")

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
	if len(process) > maxProcessLen {
		return c, &lockstep.ConfigError{Field: "ProcessID", Reason: fmt.Sprintf("%q is longer than %d bytes", process, maxProcessLen)}
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
	if err := lockstep.ValidateTTL("CensusTTL", c.censusTTL); err != nil {
		return c, err
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
		return c, &lockstep.ConfigError{Field: "PhaseCache", Reason: fmt.Sprintf("%v must not be negative", c.phaseCache)}
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
}

// newAlgorithms builds the three lockers on one store and clock. Each gets
// its own process id suffix (":legacy", ":combined", ":new"): the lockers
// number their acquisitions independently, and owner ids must never repeat
// within a table — a legacy lock and the legacy half of a combined lock of
// the same process would otherwise both be "<process>.1", and the second would
// take the first's cell in the main row for its own.
func newAlgorithms(store lockstep.Store, clk lockstep.Clock, process string, o *Options, obs lockstep.Observer) (algorithms, error) {
	var qo queuelock.Options
	var so shadowlock.Options
	if o != nil && o.Queue != nil {
		qo = *o.Queue
	}
	if o != nil && o.Legacy != nil {
		so = *o.Legacy
	}
	if qo.Clock != nil || qo.ProcessID != "" || so.Clock != nil || so.ProcessID != "" {
		return algorithms{}, &lockstep.ConfigError{Field: "Queue/Legacy", Reason: "Clock and ProcessID are set by migration.New; leave them unset"}
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
	if o != nil && qo.Logger == nil {
		qo.Logger = o.Logger
	}
	if o != nil && so.Logger == nil {
		so.Logger = o.Logger
	}
	if qo.Observer == nil {
		qo.Observer = obs
	}
	if so.Observer == nil {
		so.Observer = obs
	}
	seed := rand.Uint64()
	if so.Rand != nil {
		seed = so.Rand.Uint64()
	}
	// Each shadowlock.Locker uses its Rand under its own mutex: never share one.
	so.Rand = rand.New(rand.NewPCG(seed, 1))
	so2 := so
	so2.Rand = rand.New(rand.NewPCG(seed, 2))
	qo2 := qo

	var a algorithms
	var err error
	// Legacy and new locks draw their own token; the halves of a combined
	// lock (qo2, so2, copied above) draw none: the combined lock draws one.
	so.Fencing, qo.Fencing = fence, fence
	so.ProcessID = process + ":legacy"
	if a.legacy, err = shadowlock.New(store, &so); err != nil {
		return a, err
	}
	qo.ProcessID = process + ":new"
	if a.queue, err = queuelock.New(store, &qo); err != nil {
		return a, err
	}
	qo2.ProcessID, so2.ProcessID = process+":combined", process+":combined"
	if a.combined, err = combined.New(store, &combined.Options{Queue: &qo2, Legacy: &so2, Fencing: fence}); err != nil {
		return a, err
	}
	return a, nil
}

func clockOr(c lockstep.Clock) lockstep.Clock {
	if c == nil {
		return &clock.Local{}
	}
	return c
}
