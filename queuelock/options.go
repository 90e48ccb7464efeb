package queuelock

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/ident"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// DefaultTable is the table the queue lock uses unless Options.Table says
// otherwise.
const DefaultTable = "queue_lock"

// Options configure a Locker. The zero value of every field means its
// default; a nil *Options means all defaults.
type Options struct {
	// Table holds the queue, owner and floor cells. Default DefaultTable.
	Table string
	// TTL is written on every cell; a whole number of seconds. Default 30s.
	TTL time.Duration
	// Renew is the renewal interval of holders and waiters; at most TTL/3.
	// Default TTL/3.
	Renew time.Duration
	// Poll is how often a waiter re-reads the queue. Default 50ms.
	Poll time.Duration
	// MaxClockSkew bounds the difference between any two clocks of the fleet
	// (processes and Cassandra replicas). The read floor stays
	// 2×MaxClockSkew + TTL behind the present, so a cell named by a lagging
	// clock is never hidden below it. Default 5s.
	MaxClockSkew time.Duration
	// Clock is this process's clock. Default a clock.Local.
	Clock lockstep.Clock
	// ProcessID prefixes every owner id this locker issues; 1–64 of
	// [A-Za-z0-9._:-]. Default a random 128-bit hex id.
	ProcessID string
	// Logger receives renewal trouble and loss at Warn. Default discards.
	Logger *slog.Logger
	// Observer receives acquisition, release and lease events. Default none.
	Observer lockstep.Observer
	// Fencing, when set, gives every acquisition a fencing token from the
	// global time service, strictly increasing across successive owners.
	// Default none (Token returns 0).
	Fencing *clock.Global
}

// config is Options resolved and validated.
type config struct {
	table    string
	lease    lease.Config
	poll     time.Duration
	skew     time.Duration
	clock    lockstep.Clock
	process  string
	logger   *slog.Logger
	observer lockstep.Observer
	fencing  *clock.Global
}

func (o *Options) resolve() (config, error) {
	var in Options
	if o != nil {
		in = *o
	}
	c := config{
		table: in.Table, lease: lease.Config{TTL: in.TTL, Renew: in.Renew}, poll: in.Poll,
		skew: in.MaxClockSkew, clock: in.Clock, process: in.ProcessID,
		logger: in.Logger, observer: in.Observer, fencing: in.Fencing,
	}
	if c.table == "" {
		c.table = DefaultTable
	}
	if c.lease.TTL == 0 {
		c.lease.TTL = 30 * time.Second
	}
	if c.lease.Renew == 0 && c.lease.TTL > 0 {
		c.lease.Renew = c.lease.TTL / 3
	}
	if c.poll == 0 {
		c.poll = 50 * time.Millisecond
	}
	if c.skew == 0 {
		c.skew = 5 * time.Second
	}
	if c.clock == nil {
		c.clock = &clock.Local{}
	}
	if c.process == "" {
		c.process = ident.NewProcessID()
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.observer == nil {
		c.observer = lockstep.NopObserver{}
	}
	if err := lockstep.ValidateName("Table", c.table); err != nil {
		return c, err
	}
	if err := c.lease.Validate(); err != nil {
		return c, err
	}
	if c.poll < 0 {
		return c, &lockstep.ConfigError{Field: "Poll", Reason: fmt.Sprintf("%v must be positive", c.poll)}
	}
	if c.skew < 0 {
		return c, &lockstep.ConfigError{Field: "MaxClockSkew", Reason: fmt.Sprintf("%v must not be negative", c.skew)}
	}
	return c, ident.ValidateProcessID(c.process)
}
