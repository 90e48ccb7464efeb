package queuelock

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/settings"
	"github.com/lockstep-go/lockstep/wakeup"
)

// DefaultTable is the table the queue lock uses unless Options.Table says
// otherwise.
const DefaultTable = "queue_lock"

// DefaultMaxClockSkew is Options.MaxClockSkew's default.
const DefaultMaxClockSkew = 250 * time.Millisecond

// Options configure a Locker. The zero value of every field means its
// default; a nil *Options means all defaults.
type Options struct {
	// Table holds the queue, owner and floor cells. Default DefaultTable.
	Table string
	// TTL is written on every cell; a whole number of seconds, at least
	// the smallest TTL that leaves a safe lease given MaxServerSkew (4s with
	// the default skew; see MaxServerSkew). Zero means the default, 30s; a
	// negative TTL is refused.
	TTL time.Duration
	// Renew is the renewal interval of holders and waiters; at most half the lease
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
	// Poll is how often a waiter re-reads the queue; the waiter next in line
	// re-reads every Poll/4 (at least every millisecond), so a release is
	// noticed sooner without every waiter reading more. Default 50ms.
	Poll time.Duration
	// MaxClockSkew bounds how far apart the clocks of any two processes of
	// the fleet read. Reads of the queue start 2×MaxClockSkew behind this
	// process's clock (or at the oldest waiter it last saw, if older), so a
	// waiter whose clock lags, and whose write is in flight, is not hidden
	// below the start (floor.go). It matters for fairness only: mutual
	// exclusion does not depend on it. Larger costs reads: a hot id's reads
	// step over the tombstones of the acquisitions of the last
	// 2×MaxClockSkew. Default 250ms.
	MaxClockSkew time.Duration
	// Clock is this process's clock. Default a clock.Local.
	Clock lockstep.Clock
	// ProcessID prefixes every owner id this locker issues; 1 to 255 bytes
	// of [A-Za-z0-9._:-]. It must be unique across the fleet: two lockers
	// sharing one would issue the same owner ids and could both believe they
	// hold a lock. Default the sanitized host name, '-' and 64 random bits
	// in hex.
	ProcessID string
	// Logger receives renewal trouble and loss at Warn. Default discards.
	Logger *slog.Logger
	// Observer receives acquisition, release and lease events. Default none.
	Observer lockstep.Observer
	// Fencing, when set, gives every acquisition a fencing token
	// (lockstep.Fenced) from the global time service, strictly increasing
	// across successive owners of a lock id — across owners taken in any
	// mode, if every Locker of the fleet draws from the same global time
	// table. An acquisition whose lease lapsed before its token arrived, or
	// whose draw failed, does not return a lock (see the package
	// documentation, "Fencing tokens"). Default none (Token returns 0).
	// A lock of several members (a group, or with Separator an id with
	// ancestors) is not lockstep.Fenced: each member has its own token and
	// they have no common order (internal/manager); lock the resource's own
	// id alone to fence it.
	Fencing *clock.Global
	// Rand draws this Locker's incarnation, which tells its owner cells from
	// those of any other Locker (internal/layout). Default crypto/rand; set it
	// only to make a simulation repeat exactly.
	Rand *rand.Rand
	// NoFastPath makes every Lock take the documents' path (enqueue, read,
	// claim, read) even when the lock looks free, instead of the one-request
	// claim of the fast path (doc.go, refinement 7; fastpath.go). For comparisons; the
	// default, false, is what the model checks cover most.
	NoFastPath bool
	// SlowPoll is the longest a waiter waits between two reads of the
	// queue. Waiters further back in line read less often: one at position
	// k waits (k−1) times the handoff interval it observed, at least Poll
	// and at most SlowPoll; with Wake set, every waiter not next in line
	// waits SlowPoll and a wake-up ends the wait early. At least Poll and at
	// most TTL/2. Default 4×Poll (200ms with the default Poll), or with
	// Wake 20×Poll (1s), but at most TTL/4 and not below Poll.
	SlowPoll time.Duration
	// Wake, when set, turns on wake-ups on release (wake.go): a waiter
	// publishes where it can be woken, the releaser wakes the waiter next
	// in line, which then claims at once. It needs a UDP port per
	// process reachable by the fleet and a key every process shares (see
	// the package documentation, "Wake-ups on release"). Default off.
	Wake *Wake
	// Separator, when set, makes lock ids hierarchical (seed 004): with "/",
	// a lock of "a/b/c" in any access also takes the intention access
	// (lockstep.Access.Intention) on "a" and "a/b" first, so it conflicts
	// with locks of its ancestors and descendants as the access matrix says,
	// and not with its siblings'. Lock, TryLock and the group calls all
	// follow it; the lock returned is then a group (lockstep.Grouped). 1 to
	// 8 bytes; an id with an empty segment ("a//b", "/a", "a/") is refused.
	// Every process locking the same ids must use the same Separator.
	// Default "": flat ids.
	Separator string
}

// Wake configures wake-ups on release.
type Wake struct {
	// Transport sends and receives this Locker's wake-ups; its Addr is
	// published in the queue cells of the Locker's waiters. Give each
	// Locker a Transport of its own (wakeup.ListenUDP), and Close it after
	// the Locker.
	Transport wakeup.Transport
	// Key authenticates wake-ups (HMAC-SHA256): at least
	// wakeup.MinKeyBytes random bytes, the same in every process of the
	// fleet. A datagram not sealed with it is dropped unread.
	Key []byte
}

// config is Options resolved and validated.
type config struct {
	settings.Resolved
	table   string
	poll    time.Duration
	skew    time.Duration
	fencing *clock.Global
	noFast  bool
	rand    *rand.Rand
	slow    time.Duration // Options.SlowPoll, resolved
	wake    *Wake         // nil: wake-ups off
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
	c := config{Resolved: common, table: in.Table, poll: in.Poll, skew: in.MaxClockSkew, fencing: in.Fencing, noFast: in.NoFastPath, rand: in.Rand,
		slow: in.SlowPoll, wake: in.Wake}
	if err != nil {
		return c, err
	}
	if c.table == "" {
		c.table = DefaultTable
	}
	if c.poll == 0 {
		c.poll = 50 * time.Millisecond
	}
	if c.skew == 0 {
		c.skew = DefaultMaxClockSkew
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
		n := time.Duration(4)
		if c.wake != nil {
			n = 20
		}
		c.slow = max(c.poll, min(n*c.poll, c.Lease.TTL/4))
	} else if c.slow < c.poll || c.slow > c.Lease.TTL/2 {
		return c, &lockstep.ConfigError{Field: "SlowPoll", Reason: fmt.Sprintf("%v must be at least Poll (%v) and at most TTL/2 (%v)", c.slow, c.poll, c.Lease.TTL/2)}
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
	if c.skew < 0 || 2*c.skew >= c.Lease.TTL {
		return c, &lockstep.ConfigError{Field: "MaxClockSkew", Reason: fmt.Sprintf("%v must be positive and below TTL/2 (%v): keep the processes' clocks in sync (NTP) and set a bound below that, or raise TTL", c.skew, c.Lease.TTL/2)}
	}
	return c, nil
}
