package queue

import (
	"cmp"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/wakeup"
)

// DefaultTable is the table the queue lock uses unless Options.Table says
// otherwise.
const DefaultTable = "queue_lock"

// DefaultMaxClockSkew is Options.MaxClockSkew's default.
const DefaultMaxClockSkew = 250 * time.Millisecond

// Options configure a Locker (queuelock.Options is this type, documented
// here once). The zero value of every field means its default; a nil
// *Options means all defaults. New refuses invalid values.
type Options struct {
	// Table holds the lock cells. Default DefaultTable.
	Table string
	// TTL is written on every cell: whole seconds, at least 4s with the
	// default MaxServerSkew. Default 30s.
	TTL time.Duration
	// Renew is the renewal period, at most (TTL − 1s − MaxServerSkew)/4.
	// Default TTL/3 or that bound, whichever is shorter.
	Renew time.Duration
	// MaxServerSkew bounds the clock difference between Cassandra nodes;
	// the lease window depends on it. Default 1s.
	MaxServerSkew time.Duration
	// Poll is how often a waiter re-reads the queue. Default 50ms.
	Poll time.Duration
	// MaxClockSkew bounds the clock difference between processes, for
	// fairness only. Below TTL/2. Default DefaultMaxClockSkew.
	MaxClockSkew time.Duration
	// Clock is this process's clock. Default a clock.Local.
	Clock lockstep.Clock
	// ProcessID, unique in the fleet, prefixes owner ids. Default the host
	// name and 64 random bits.
	ProcessID string
	// Logger receives renewal trouble and loss at Warn. Default discards.
	Logger *slog.Logger
	// Observer receives acquisition, release and lease events. Default none.
	Observer lockstep.Observer
	// Fencing, when set, gives each one-id lock a token drawn from this
	// service (lockstep.Fenced). Default none.
	Fencing *clock.Global
	// Evidence, with Fencing and a lockstep.Mutator store, records each
	// release's token in the id's partition (EvidenceRecord) and, at
	// EvidenceUse, draws a claim's token beside the claim instead of after
	// it, so that fencing adds no sequential request; a queuelock Locker
	// then reserves values ahead with each such draw, for its later claims
	// of ids no other process recorded above it (docs/algorithms.md,
	// section 5.3). A fleet-wide setting taken in two steps: see the
	// pitfalls. Default EvidenceOff.
	Evidence Evidence
	// TestingKnobs plant defects for negative controls. Leave nil.
	TestingKnobs *TestingKnobs
	// Rand draws the Locker's incarnation, for exact replay of simulations.
	// Default crypto/rand.
	Rand *rand.Rand
	// NoFastPath turns off the uncontended one-write, one-read acquisition.
	NoFastPath bool
	// SlowPoll is the longest a waiter further back waits between reads.
	// Default 4×Poll (20×Poll with Wake), at most TTL/4.
	SlowPoll time.Duration
	// Wake, when set, turns on wake-ups on release. Default off.
	Wake *Wake
	// Handoff, with Wake and a lockstep.Mutator store, makes an exclusive
	// release hand the lock to the next exclusive waiter: one round trip and
	// a datagram (a grant) instead of three round trips, or two when the
	// releaser's lease lapsed meanwhile. The wake-up key then grants locks:
	// see the pitfalls. Default off.
	Handoff bool
	// IntentionRange keeps IS and IX owner cells in columns that IS and IX
	// claims skip, sparing them a cell per such holder below a hot
	// ancestor. A stored format: see the pitfalls. Default off.
	IntentionRange bool
	// Separator makes ids hierarchical: with "/", a lock of "a/b" first
	// takes an intention lock on "a". Default "": flat ids.
	Separator string
	// Deadlock, when set, turns on deadlock detection
	// (lockstep.DeadlockDetection). Default off.
	Deadlock *lockstep.DeadlockDetection
	// LocalHandoff, when above 0, turns on local handoff (lock cohorting):
	// an exclusive lock unlocked while another acquisition of this Locker
	// waits for it exclusively passes to that waiter in memory, with the
	// next fencing token of the block the store acquisition reserved
	// (LocalHandoff+1 tokens) and no store request, up to LocalHandoff times in
	// a row; then it is released in the store, so that other processes'
	// waiters keep a bounded wait, unless a look at the id's partition,
	// sent three grants before (all LocalHandoff of them, below 3), saw
	// no other process waiting: then it goes on with a fresh block
	// (docs/algorithms.md, section 4.15). Other accesses, and TryLock
	// while the id is held or awaited here, are not affected. Only
	// queuelock.New applies it: the combined Locker refuses it, and a
	// migration Locker has Options.LocalHandoff of its own. A lock taken
	// with it may be Shared: its Unlock then hands nothing on (section
	// 4.15, "Sharing a grant"). Default 0: off.
	LocalHandoff int
	// Retain, when above 0, needs LocalHandoff: an exclusive lock whose
	// Unlock finds nobody of this Locker waiting for it stays held in the
	// store (renewed) for up to Retain, and an exclusive Lock of the id by
	// this Locker meanwhile is granted in memory (one of the LocalHandoff
	// grants). It is released at once when a waiter of another process
	// is seen in the store — the Locker reads the id's partition when it
	// keeps the lock and then once per Renew — when its lease is lost, on
	// Close, and when a request of another access or a TryLock that must
	// wait arrives (docs/algorithms.md, section 4.15). Default 0: off.
	Retain time.Duration
}

// Wake configures wake-ups on release.
type Wake struct {
	// Transport sends and receives this Locker's wake-ups; one per Locker
	// (wakeup.ListenUDP), closed after the Locker.
	Transport wakeup.Transport
	// Key authenticates wake-ups: at least wakeup.MinKeyBytes random bytes,
	// the same in every process of the fleet.
	Key []byte
}

// config is Options resolved and validated.
type config struct {
	setup.Process // the process's settings, resolved
	Lease         lease.Config
	table         string
	poll          time.Duration
	skew          time.Duration
	noFast        bool
	rand          *rand.Rand
	slow          time.Duration // Options.SlowPoll, resolved
	// slowPlain is SlowPoll without wake-ups: the default for a Locker
	// without them, also used by one whose wake-ups stopped arriving.
	slowPlain time.Duration
	wake      *Wake         // nil: wake-ups off
	handoff   bool          // Options.Handoff
	local     int           // Options.LocalHandoff
	retain    time.Duration // Options.Retain
	intention bool          // Options.IntentionRange
	evidence  Evidence      // Options.Evidence
	knobs     TestingKnobs  // planted defects; zero in production
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
	c := config{Process: p, table: cmp.Or(in.Table, DefaultTable), poll: cmp.Or(in.Poll, 50*time.Millisecond),
		skew: cmp.Or(in.MaxClockSkew, DefaultMaxClockSkew), noFast: in.NoFastPath, rand: in.Rand, slow: in.SlowPoll, wake: in.Wake,
		handoff: in.Handoff, intention: in.IntentionRange, local: in.LocalHandoff, retain: in.Retain, evidence: in.Evidence, knobs: deref.Of(in.TestingKnobs)}
	var err error
	if c.Lease, err = setup.Lease(in.TTL, in.Renew, in.MaxServerSkew, c.knobs.Lease); err != nil {
		return c, err
	}
	if err := lockstep.ValidateName("Table", c.table); err != nil {
		return c, err
	}
	if c.poll < 0 {
		return c, &lockstep.ConfigError{Field: "Poll", Reason: fmt.Sprintf("%v must not be negative: use 0 for the default or a positive period", c.poll)}
	}
	if c.slow == 0 {
		// Without wake-ups a waiter that sleeps past its turn stalls the
		// line (nobody else may claim for it), so the pacing's reach is
		// short; with them the releaser wakes the next in line.
		c.slowPlain = max(c.poll, min(4*c.poll, c.Lease.TTL/4))
		c.slow = c.slowPlain
		if c.wake != nil {
			c.slow = max(c.poll, min(20*c.poll, c.Lease.TTL/4))
		}
	} else if c.slow < c.poll || c.slow > c.Lease.TTL/2 {
		return c, &lockstep.ConfigError{Field: "SlowPoll", Reason: fmt.Sprintf("%v must be at least Poll (%v) and at most TTL/2 (%v)", c.slow, c.poll, c.Lease.TTL/2)}
	} else {
		c.slowPlain = c.slow
	}
	if w := c.wake; w != nil {
		if w.Transport == nil {
			return c, &lockstep.ConfigError{Field: "Wake.Transport", Reason: "nil transport: give each Locker one, e.g. wakeup.ListenUDP, or leave Wake nil"}
		}
		if len(w.Key) < wakeup.MinKeyBytes {
			return c, &lockstep.ConfigError{Field: "Wake.Key", Reason: fmt.Sprintf("%d bytes; want at least %d random bytes shared by the whole fleet", len(w.Key), wakeup.MinKeyBytes)}
		}
		w2 := *w
		w2.Key = append([]byte(nil), w.Key...)
		c.wake = &w2
	}
	if err := CheckLocalHandoff(c.local, c.retain); err != nil {
		return c, err
	}
	if err := c.checkEvidence(); err != nil {
		return c, err
	}
	if c.handoff && c.wake == nil {
		return c, &lockstep.ConfigError{Field: "Handoff", Reason: "needs Wake: the named waiter learns of a handoff by its wake-up; set Wake too, or leave Handoff false"}
	}
	if c.skew < 0 || 2*c.skew >= c.Lease.TTL {
		return c, &lockstep.ConfigError{Field: "MaxClockSkew", Reason: fmt.Sprintf("%v must be positive and below TTL/2 (%v): keep the processes' clocks in sync (NTP) and set a bound below that, or raise TTL", c.skew, c.Lease.TTL/2)}
	}
	return c, nil
}

// CheckLocalHandoff refuses a negative LocalHandoff (local), and a Retain
// that is negative or set without local handoff: migration's Options check
// theirs with it too.
func CheckLocalHandoff(local int, retain time.Duration) error {
	switch {
	case local < 0:
		return &lockstep.ConfigError{Field: "LocalHandoff", Reason: fmt.Sprintf("%d must not be negative: use 0 for off or the most local handoffs in a row, e.g. 8", local)}
	case retain < 0:
		return &lockstep.ConfigError{Field: "Retain", Reason: fmt.Sprintf(
			"%v must not be negative: use 0 for off or how long to keep an unlocked lock for this process, e.g. 20ms", retain)}
	case retain > 0 && local < 1:
		return &lockstep.ConfigError{Field: "Retain", Reason: fmt.Sprintf(
			"%v needs LocalHandoff of at least 1: a retained lock is granted again in memory, as a local handoff; set LocalHandoff too, or leave Retain 0", retain)}
	}
	return nil
}
