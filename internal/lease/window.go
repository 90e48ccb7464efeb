package lease

import (
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// DefaultMaxServerSkew is Config.MaxServerSkew's default: how far apart the
// clocks of any two Cassandra nodes may read. NTP keeps healthy nodes within
// milliseconds; a second leaves room for a node whose NTP daemon has just
// been restarted, and costs a second of every lease.
const DefaultMaxServerSkew = time.Second

// MinWindow is the shortest lease window accepted: a lease shorter than a
// second would be lost by one slow request (a timed-out renewal or claim
// takes Cassandra's default write timeout, 2s, to fail).
const MinWindow = time.Second

// Config is the timing of a lease.
type Config struct {
	// TTL is the time to live written on every cell; a whole number of
	// seconds.
	TTL time.Duration
	// Renew is the interval between renewals; at most Window()/2, so that a
	// failed renewal still leaves time for retries before the deadline.
	Renew time.Duration
	// MaxServerSkew bounds how far apart the clocks of any two Cassandra
	// nodes read (a coordinator's and a replica's). Zero is taken as is:
	// callers apply DefaultMaxServerSkew.
	MaxServerSkew time.Duration
	// FirstRenew, when positive and below Renew, brings the first renewal
	// forward: it is due FirstRenew after the acquiring write's send, not
	// Renew; later ones follow Renew. A queue lock held in an access others
	// share sets it to its Poll, so the renewal that gives its queue cell up
	// comes soon (internal/queue, part.renew). Renewing early only extends
	// the lease, so the window's argument does not change.
	FirstRenew time.Duration
	// Knobs switch on planted defects (knobs.go); nil in production.
	Knobs *TestingKnobs
}

// Window is how long after sending a successful write a holder may count its
// cells as alive: the lease.
//
// The derivation. Cassandra keeps TTLs in whole seconds: the
// coordinator of a write sets the cell's expiry to its current second plus
// the TTL, floor(c) + TTL where c is its wall time as it handles the write,
// and each replica judges the cell dead once its own wall time reaches that
// second (AbstractCell.isLive). The coordinator handles the write after the
// client sent it, so c ≥ s + κ_c where s is the true time of the send and
// κ_c the coordinator clock's offset; the replica's clock reads r + κ_r at
// true time r. The cell is alive at every replica while
//
//	r + κ_r < floor(c) + TTL, which holds whenever
//	r < s + TTL − 1s − (κ_r − κ_c),
//
// since floor(c) > c − 1s. With |κ_r − κ_c| ≤ MaxServerSkew every cell
// written by a request sent at s lives at least
//
//	life = TTL − 1s − MaxServerSkew
//
// of true time after s. The holder measures time since s on its monotonic
// clock (never the wall clock, which may step), and closes Lost at half of
// that life: the other half is the margin for its clock's rate error, for
// the time between its last look at Lost and the work it then does, and for
// scheduling delays of its own. So
//
//	Window = (TTL − 1s − MaxServerSkew) / 2.
//
// With the defaults (TTL 30s, MaxServerSkew 1s) that is 14s. A TTL of 1s
// leaves no life at all (its cells may expire the instant they are written),
// and 2s less than a second: such TTLs are refused (Validate, MinTTL).
func (c Config) Window() time.Duration {
	if c.knobs().HalfTTLLease {
		return c.TTL / 2
	}
	return (c.TTL - time.Second - c.MaxServerSkew) / 2
}

// MinTTL returns the smallest TTL, in whole seconds, whose lease window is at
// least MinWindow given maxServerSkew: 1s + maxServerSkew + 2×MinWindow,
// rounded up to whole seconds (4s with the default skew of 1s).
func MinTTL(maxServerSkew time.Duration) time.Duration {
	min := time.Second + maxServerSkew + 2*MinWindow
	return (min + time.Second - 1).Truncate(time.Second)
}

// DefaultRenew returns the renewal interval used when none is configured:
// TTL/3, or half the window if that is shorter.
func (c Config) DefaultRenew() time.Duration {
	return min(c.TTL/3, c.Window()/2)
}

// Validate returns an error wrapping lockstep.ErrInvalidConfig unless TTL is a
// whole number of seconds of at least MinTTL(MaxServerSkew), MaxServerSkew
// is not negative, and 0 < Renew <= Window()/2. The message names the
// smallest TTL or the largest Renew that would be accepted, and following it
// passes every check: a positive TTL below the minimum is reported as such
// (the minimum is whole seconds) before the whole-seconds rule, whose advice
// (round up) could still fall below the minimum, is applied.
func (c Config) Validate() error {
	if c.knobs().HalfTTLLease {
		if err := lockstep.ValidateTTL("TTL", c.TTL); err != nil {
			return err
		}
		return c.validateHalfTTL()
	}
	if c.MaxServerSkew < 0 {
		return &lockstep.ConfigError{Field: "MaxServerSkew", Reason: fmt.Sprintf("%v must not be negative: use 0 for the default (1s) or a bound on your servers' clock difference", c.MaxServerSkew)}
	}
	if c.TTL <= 0 {
		return lockstep.ValidateTTL("TTL", c.TTL)
	}
	if min := MinTTL(c.MaxServerSkew); c.TTL < min {
		return &lockstep.ConfigError{Field: "TTL", Reason: fmt.Sprintf(
			"%v leaves no safe lease: a cell may live only TTL − 1s (Cassandra expires whole seconds) − MaxServerSkew %v = %v, "+
				"and the lease is half of that, at least %v; use a TTL of at least %v (or a smaller MaxServerSkew if your servers' clocks are kept closer)",
			c.TTL, c.MaxServerSkew, c.TTL-time.Second-c.MaxServerSkew, MinWindow, min)}
	}
	// At least the minimum: rounding up, as this advises, stays above it.
	if err := lockstep.ValidateTTL("TTL", c.TTL); err != nil {
		return err
	}
	switch w := c.Window(); {
	case c.Renew <= 0:
		return &lockstep.ConfigError{Field: "Renew", Reason: fmt.Sprintf("%v must be positive: use 0 for the default (a quarter of the lease window) or at most %v", c.Renew, w/2)}
	case c.Renew > w/2:
		return &lockstep.ConfigError{Field: "Renew", Reason: fmt.Sprintf(
			"%v is longer than half the lease window %v (TTL %v − 1s − MaxServerSkew %v, halved): a failed renewal would leave no retry before the lease ends; use at most %v",
			c.Renew, w, c.TTL, c.MaxServerSkew, w/2)}
	}
	return nil
}

// validateHalfTTL is the rule TestingKnobs.HalfTTLLease plants: any whole
// second TTL, 0 < Renew <= TTL/3.
func (c Config) validateHalfTTL() error {
	if c.Renew <= 0 || 3*c.Renew > c.TTL {
		return &lockstep.ConfigError{Field: "Renew", Reason: fmt.Sprintf("%v must be in (0, TTL/3]", c.Renew)}
	}
	return nil
}

// Stamp returns the instant, on c, from which a lease or an in-time check
// counts: elapsed time, which no wall-clock step moves.
func Stamp(c lockstep.Clock) int64 {
	return c.Elapsed()
}

// InTime reports whether a write sent at since (a Stamp) and answered now
// counts: a claim that took the whole window or more would begin its hold
// already lost.
func (c Config) InTime(clk lockstep.Clock, since int64) bool {
	return Stamp(clk)-since < c.Window().Microseconds()
}
