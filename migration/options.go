package migration

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/combine"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/internal/shadow"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Options configure a Locker. The zero value of every field means its
// default; a nil *Options means all defaults. New refuses invalid values.
type Options struct {
	// Clock defaults to a clock.Local; ProcessID, unique in the fleet, to the
	// host name and 64 random bits.
	Clock     lockstep.Clock
	ProcessID string
	// Queue and Legacy configure the algorithms; leave their Clock, ProcessID,
	// Separator and Fencing unset. Legacy's tables and TTL must match the
	// legacy fleet's.
	Queue  *queuelock.Options
	Legacy *shadowlock.Options
	// Fencing gives every lock a token; Separator makes ids hierarchical.
	Fencing   *clock.Global
	Separator string
	// Deadlock, LocalHandoff and Retain (docs/algorithms.md, 4.15) apply
	// in every mode; leave Queue's and Legacy's unset. Default off.
	Deadlock     *lockstep.DeadlockDetection
	LocalHandoff int
	Retain       time.Duration
	// CensusTTL (default 30s): whole seconds, at least 4s; keep its window
	// above the store's read timeout (5s on Cassandra).
	// PhaseCache (default 1s) is how long admission reuses a phase read.
	// FlagStaleFor (default 30s; negative: forever) is how long a failing
	// flag source is answered with its last good mode.
	CensusTable  string
	PhaseTable   string
	CensusTTL    time.Duration
	PhaseCache   time.Duration
	FlagStaleFor time.Duration
	// Host and Version are reported in the census.
	Host    string
	Version string
	// Queue and Legacy inherit Logger and Observer.
	Logger   *slog.Logger
	Observer lockstep.Observer
	// TestingKnobs plant defects for negative controls. Leave nil.
	TestingKnobs *TestingKnobs
}

// config is Options resolved and validated.
type config struct {
	censusTable, phaseTable string
	censusTTL, phaseCache   time.Duration
	census                  lease.Config // the census entry's lease: its window bounds a lock's trust in the census
	host, version           string
	knobs                   TestingKnobs  // planted defects; zero in production
	local                   int           // Options.LocalHandoff
	retain                  time.Duration // Options.Retain
}

// process returns o's process-wide settings, for setup.Process.Resolve.
func (o *Options) process() setup.Process {
	in := deref.Of(o)
	return setup.Process{Clock: in.Clock, ID: in.ProcessID, Logger: in.Logger, Observer: in.Observer, Fencing: in.Fencing, Separator: in.Separator, Deadlock: in.Deadlock}
}

// resolve resolves o's own fields (o.process() is resolved apart).
func (o *Options) resolve() (config, error) {
	in := deref.Of(o)
	c := config{censusTable: cmp.Or(in.CensusTable, census.DefaultTable), phaseTable: cmp.Or(in.PhaseTable, DefaultPhaseTable),
		censusTTL: cmp.Or(in.CensusTTL, defaultCensusTTL), phaseCache: cmp.Or(in.PhaseCache, time.Second), host: in.Host,
		version: in.Version, knobs: deref.Of(in.TestingKnobs), local: in.LocalHandoff, retain: in.Retain}
	if err := queue.CheckLocalHandoff(c.local, c.retain); err != nil {
		return c, err
	}
	if err := lockstep.ValidateName("CensusTable", c.censusTable); err != nil {
		return c, err
	}
	if err := lockstep.ValidateName("PhaseTable", c.phaseTable); err != nil {
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
	c.census.MaxServerSkew = cmp.Or(c.census.MaxServerSkew, lease.DefaultMaxServerSkew)
	c.census.Renew = c.census.DefaultRenew()
	if err := c.census.Validate(); err != nil {
		var ce *lockstep.ConfigError
		if errors.As(err, &ce) {
			ce.Field = "CensusTTL"
		}
		return c, err
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
	return c, nil
}

// algorithms are the three lockers of one process.
type algorithms struct {
	// legacy and queue are the two algorithms' cores (internal/shadow,
	// internal/queue), called directly; combined composes them.
	legacy   *shadow.Locker
	combined *combine.Locker
	queue    *queue.Locker
	fencing  *clock.Global // Options.Fencing; nil without fencing
}

// of returns the algorithm of mode m, below the migration Locker's lock
// manager: the mode switch calls down into it.
func (a algorithms) of(m lockstep.Mode) manager.Algorithm {
	switch m {
	case lockstep.ModeLegacy:
		return a.legacy
	case lockstep.ModeCombined:
		return a.combined
	}
	return a.queue
}

// newAlgorithms builds one queue Locker and one legacy Locker for the
// process, with p, its settings resolved, and the combined Locker
// composing the two. Modes share them: a
// lock taken in mode new and the queue half of one taken in mode combined
// come from the same queue Locker, so goroutines of a process whose flag
// flips between the two still contend for an id one at a time in the store
// (internal/lifecycle, Turns), and owner ids, numbered by one Locker per table, never
// repeat within a table.
func newAlgorithms(store lockstep.Store, p setup.Process, o *Options, k TestingKnobs) (algorithms, error) {
	in := deref.Of(o)
	qo, so := deref.Of(in.Queue), deref.Of(in.Legacy)
	if (qo.Clock != nil && !setup.SameClock(qo.Clock, p.Clock)) || (so.Clock != nil && !setup.SameClock(so.Clock, p.Clock)) {
		return algorithms{}, &lockstep.ConfigError{Field: "Queue.Clock/Legacy.Clock", Reason: "one process has one clock: set Options.Clock and leave these unset (or equal to it)"}
	}
	if err := combine.CheckHalves("migration", &qo, &so, p.ID); err != nil {
		return algorithms{}, err
	}
	if qo.Evidence != queue.EvidenceOff && p.Fencing == nil {
		return algorithms{}, &lockstep.ConfigError{Field: "Queue.Evidence", Reason: fmt.Sprintf("%v records fencing tokens, and this Locker draws none: set Options.Fencing, or leave Queue.Evidence off", qo.Evidence)}
	}
	ck := deref.Of(k.Combined)
	if k.Fencing != nil { // every mode draws its tokens through its own Locker
		ck.Fencing = k.Fencing
		qk, sk := deref.Of(qo.TestingKnobs), deref.Of(so.TestingKnobs)
		qk.Fencing, sk.Fencing = k.Fencing, k.Fencing
		qo.TestingKnobs, so.TestingKnobs = &qk, &sk
	}
	var a algorithms
	var err error
	// One owner-id issuer for the process's two cores, passed to both:
	// owner ids unique across them. Legacy and new locks draw their own
	// tokens, combined ones one for both halves; the halves inherit the
	// Logger and Observer they leave unset.
	owners := setup.NewOwners(p.ID)
	if a.legacy, err = shadow.NewWith(store, &so, p.Half(cmp.Or(so.Logger, p.Logger), cmp.Or(so.Observer, p.Observer), true), owners); err != nil {
		return a, err
	}
	if a.queue, err = queue.NewWith(store, &qo, p.Half(cmp.Or(qo.Logger, p.Logger), cmp.Or(qo.Observer, p.Observer), true), owners); err != nil {
		return a, err
	}
	// At EvidenceUse its locks of mode new take tokens drawn ahead, each
	// only from a draw sent after its admission (modeSwitch.Take).
	a.queue.TakeAhead()
	a.fencing = p.Fencing
	if a.combined, err = combine.New(a.queue, a.legacy, p.Fencing, false, &ck); err != nil {
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
