package schema

import (
	"cmp"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// DefaultLegacyGCGrace is the gc_grace_seconds of the legacy tables
// (legacy_main, legacy_shadow) unless WithLegacyTTL derives a shorter one:
// 3 h, the default max_hint_window. It suits legacy writers whose TTL is up
// to LegacyGCGrace's inverse, about 2 h 55 min.
const DefaultLegacyGCGrace = 3 * time.Hour

// LegacyGCMargin is what LegacyGCGrace adds above a legacy cell's sure end
// of life: time for a write still travelling to its coordinator after its
// client gave up on it (the client's and the server's request timeouts are
// seconds), so that it cannot outlast the tombstone that shadows it.
const LegacyGCMargin = 5 * time.Minute

// LegacyGCGrace returns the gc_grace_seconds WithLegacyTTL gives the legacy
// tables when no legacy writer of the fleet uses a TTL above maxTTL and no
// two Cassandra servers' clocks are more than maxServerSkew apart:
// maxTTL + maxServerSkew + 1 s (Cassandra expires cells in whole seconds) +
// LegacyGCMargin, rounded up to whole seconds. doc.go ("Hot legacy ids")
// has the argument that a tombstone purged after that long cannot bring a
// held lock's cell back. maxTTL must be a whole number of seconds, at least
// one; maxServerSkew must not be negative. Errors wrap
// lockstep.ErrInvalidConfig.
func LegacyGCGrace(maxTTL, maxServerSkew time.Duration) (time.Duration, error) {
	if maxTTL < time.Second || maxTTL%time.Second != 0 {
		return 0, &lockstep.ConfigError{Field: "legacy TTL",
			Reason: fmt.Sprintf("%v is not a whole number of seconds of at least 1s: give the longest TTL any legacy writer of the fleet uses", maxTTL)}
	}
	if maxServerSkew < 0 {
		return 0, &lockstep.ConfigError{Field: "max server skew", Reason: fmt.Sprintf("%v is negative: give how far apart the servers' clocks can be", maxServerSkew)}
	}
	g := maxTTL + maxServerSkew + time.Second + LegacyGCMargin
	return (g + time.Second - 1).Truncate(time.Second), nil
}

// WithLegacyTTL derives the legacy tables' gc_grace_seconds (and their
// tombstone_compaction_interval and memtable_flush_period_in_ms, which
// follow it) from the longest TTL any legacy writer of the fleet uses and
// the servers' clock skew (LegacyGCGrace), instead of DefaultLegacyGCGrace.
// Every read of a legacy lock reads whole rows, so it steps over every
// tombstone younger than that: the shorter grace lets a hot legacy id be
// taken that much more often before its reads hit Cassandra's tombstone
// thresholds (doc.go). Statements and Apply report invalid values as errors
// wrapping lockstep.ErrInvalidConfig. Apply creates tables only if they do
// not exist; an existing table needs the ALTER TABLE that Statements'
// options show (lockctl schema print).
func WithLegacyTTL(maxTTL, maxServerSkew time.Duration) Option {
	return func(c *config) {
		c.legacyGrace, c.legacyErr = LegacyGCGrace(maxTTL, maxServerSkew)
	}
}

// legacyTableOptions returns the template values of the legacy tables'
// grace-dependent options.
func (c *config) legacyTableOptions() map[string]string {
	g := c.legacyGrace
	g = cmp.Or(g, DefaultLegacyGCGrace)
	secs := int64(g / time.Second)
	return map[string]string{
		"GCGrace":       fmt.Sprint(secs),
		"FlushPeriodMs": fmt.Sprint(secs * 1000),
	}
}
