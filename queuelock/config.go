package queuelock

import (
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/queue"
)

// DefaultTable is the table the queue lock uses unless Options.Table says
// otherwise.
const DefaultTable = "queue_lock"

// DefaultMaxClockSkew is Options.MaxClockSkew's default.
const DefaultMaxClockSkew = 250 * time.Millisecond

// Options configure a Locker. The zero value of every field means its
// default; a nil *Options means all defaults. New refuses invalid values.
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
	// release hand the lock to the next exclusive waiter: two round trips
	// instead of three. See the pitfalls. Default off.
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
}

// Wake configures wake-ups on release. Its fields:
//
//   - Transport sends and receives this Locker's wake-ups; one per Locker
//     (wakeup.ListenUDP), closed after the Locker.
//   - Key authenticates wake-ups: at least wakeup.MinKeyBytes random bytes,
//     the same in every process of the fleet.
type Wake = queue.Wake

// TestingKnobs switch on planted defects for this module's negative
// controls (propertytests/doc.go; docs/verification.md lists them). Leave
// them nil: every one of them breaks the lock.
type TestingKnobs = queue.TestingKnobs
