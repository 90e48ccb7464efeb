package election

import (
	"cmp"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Defaults of Options.
const (
	DefaultTTL  = 30 * time.Second
	DefaultPoll = time.Second
)

// MaxValueLen bounds a candidate's value, in bytes: the record is one cell,
// read by every observer at every poll.
const MaxValueLen = 4096

// Options configure an Election. The zero value of every field means its
// default; a nil *Options means all defaults. New refuses invalid values.
type Options struct {
	// Table holds the leader record. Default queuelock.DefaultTable, in a
	// partition no lock id can name (see the package documentation).
	Table string
	// TTL is the leader record's time to live, whole seconds: how long
	// Leader may name a leader that crashed. Default DefaultTTL.
	TTL time.Duration
	// Refresh is how often the leader rewrites its record, at most TTL/3 so
	// that two rewrites in a row may fail without the record lapsing.
	// Default TTL/3.
	Refresh time.Duration
	// Poll is Observe's cadence, and the pause between Campaign's attempts
	// to write the record after a store error. Default DefaultPoll.
	Poll time.Duration
	// Clock is this process's clock, for the record's refresh and for
	// Observe; pass the Locker's. Default a clock.Local.
	Clock lockstep.Clock

	// TestingKnobs plants defects for the model check's negative control
	// (knobs.go). Default nil: none.
	TestingKnobs *TestingKnobs
}

// config is Options resolved and validated.
type config struct {
	table   string
	ttl     time.Duration
	refresh time.Duration
	poll    time.Duration
	clock   lockstep.Clock
	knobs   *TestingKnobs
}

func (o *Options) resolve() (config, error) {
	in := deref.Of(o)
	c := config{table: in.Table, ttl: in.TTL, refresh: in.Refresh, poll: in.Poll, clock: in.Clock, knobs: in.TestingKnobs}
	c.table = cmp.Or(c.table, queuelock.DefaultTable)
	if err := lockstep.ValidateName("Table", c.table); err != nil {
		return c, err
	}
	c.ttl = cmp.Or(c.ttl, DefaultTTL)
	if err := lockstep.ValidateTTL("TTL", c.ttl); err != nil {
		return c, err
	}
	c.refresh = cmp.Or(c.refresh, c.ttl/3)
	if c.refresh < 0 || c.refresh > c.ttl/3 {
		return c, &lockstep.ConfigError{Field: "Refresh", Reason: fmt.Sprintf("%v must be positive and at most TTL/3 (%v): leave it 0 for TTL/3", c.refresh, c.ttl/3)}
	}
	c.poll = cmp.Or(c.poll, DefaultPoll)
	if c.poll < 0 {
		return c, &lockstep.ConfigError{Field: "Poll", Reason: fmt.Sprintf("%v must be positive: leave it 0 for %v", c.poll, DefaultPoll)}
	}
	if c.clock == nil {
		c.clock = &clock.Local{}
	}
	return c, nil
}
